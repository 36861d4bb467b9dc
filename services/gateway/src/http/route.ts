/**
 * The one way routes are declared: access check, request context for gRPC calls, envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { runWithContext } from '@edge/rpc';
import { authorize, expiryHeaders, type Access } from './access.js';
import type { Principal, SessionCache } from './session-cache.js';

/** What a handler returns: a status and a body (already an envelope), plus optional headers. */
export interface Result {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  contentType?: string;
}

export type Handler = (req: FastifyRequest, principal: Principal | undefined) => Promise<Result>;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const tracer = trace.getTracer('@edge/gateway');

/** Registers routes under a prefix with the session cache at hand. */
export function createRouter(app: FastifyInstance, cache: SessionCache) {
  return (method: Method, url: string, access: Access, handler: Handler) => {
    const respond = async (req: FastifyRequest, reply: FastifyReply) => {
      const principal = await authorize(req, access, cache);
      const ctx = { requestId: req.id, actorId: principal?.apiSession?.identityId };
      const result = await runWithContext(ctx, () => handler(req, principal));
      expiryHeaders(reply, principal);
      if (result.headers) reply.headers(result.headers);
      if (result.contentType) reply.type(result.contentType);
      return reply.status(result.status ?? 200).send(result.body);
    };
    app.route({
      method,
      url,
      // One server span per request, continuing a caller's traceparent; every gRPC call and
      // event below it joins the same trace.
      handler: (req: FastifyRequest, reply: FastifyReply) => {
        const parent = propagation.extract(context.active(), req.headers);
        const attributes = { 'http.request.method': method, 'http.route': url, 'edge.request_id': req.id };
        return tracer.startActiveSpan(`${method} ${url}`, { kind: SpanKind.SERVER, attributes }, parent, async (span) => {
          try {
            return await respond(req, reply);
          } catch (err) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw err;
          } finally {
            span.end();
          }
        });
      },
    });
  };
}

export type Router = ReturnType<typeof createRouter>;
