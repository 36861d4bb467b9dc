/**
 * The one way routes are declared: access check, request context for gRPC calls, envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { context, isSpanContextValid, propagation, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { handleWithContext, type RequestContext } from '@edge/rpc';
import { authorize, expiryHeaders, type Access } from './access.js';
import { noteRequest } from './request-facts.js';
import { TRACE_ID_HEADER } from './request-log.js';
import type { Principal, SessionCache } from './session-cache.js';
import { callerPrincipal } from './caller.js';
import { withEveryRow } from './every-row.js';
import { encodeFor } from './compression.js';

/** What a handler returns: a status and a body (already an envelope), plus optional headers. */
export interface Result {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  contentType?: string;
}

export type Handler = (req: FastifyRequest, principal: Principal | undefined) => Promise<Result>;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the API documents say about a route beyond its method, path and access. */
export interface RouteDoc {
  /** The zod schema the handler parses the JSON body with. */
  body?: z.ZodType;
  /** The body is text (a PEM CSR or certificate) rather than JSON. */
  textBody?: boolean;
  /** The status of a successful answer when it is not 200. */
  status?: number;
  /** What the answer is when it is not a JSON envelope. */
  produces?: string;
}

/** One declared route, as the OpenAPI documents are generated from. */
export interface RouteEntry {
  method: Method;
  url: string;
  access: Access;
  doc: RouteDoc;
}

const tracer = trace.getTracer('@edge/gateway');

/** How long a request may take: every gRPC call made for it ends by then (RequestContext.deadline). */
export interface RouterOptions {
  deadlineMs: number;
  /** Called when an administrator's write (any method but GET) succeeded, before it is answered. */
  onAdminWrite?: () => void;
}

/** The id in a create's envelope (`{data: {id}}`), for the audit of the change. */
function createdIdOf(body: unknown): string | undefined {
  const id = (body as { data?: { id?: unknown } } | undefined)?.data?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The content type of the JSON answers. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON answer as the bytes sent: encoded once, its length known without scanning the text
 * again and written to the socket as is (fastify would measure the string, then the socket encode
 * it), which a page of a hundred services makes worth it.
 */
export const jsonBytes = (body: unknown): Buffer => Buffer.from(JSON.stringify(body));

/** `body` as JSON bytes when it is an object; anything else goes as it is. */
function jsonBody(reply: FastifyReply, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return body;
  reply.type(JSON_CONTENT_TYPE);
  return jsonBytes(body);
}

/**
 * Registers routes with the session cache at hand; every route declared is also recorded in
 * `registry`, from which the served API documents are built.
 */
export function createRouter(app: FastifyInstance, cache: SessionCache, registry: RouteEntry[] = [], options: RouterOptions = { deadlineMs: 10_000 }) {
  return (method: Method, url: string, access: Access, handler: Handler, doc: RouteDoc = {}) => {
    registry.push({ method, url, access, doc });
    const respond = async (req: FastifyRequest, reply: FastifyReply) => {
      const ctx: RequestContext = { requestId: req.id, deadline: Date.now() + options.deadlineMs };
      const { principal, result } = await handleWithContext(ctx, async () => {
        const principal = await authorize(req, access, cache);
        ctx.actorId = principal?.apiSession?.identityId;
        ctx.principal = callerPrincipal(principal);
        return { principal, result: method === 'GET' ? await withEveryRow(req, () => handler(req, principal)) : await handler(req, principal) };
      });
      if (result.status === 201) noteRequest(req, { createdId: createdIdOf(result.body) });
      if (access === 'admin' && method !== 'GET') options.onAdminWrite?.();
      expiryHeaders(reply, principal);
      if (result.headers) reply.headers(result.headers);
      if (result.contentType) reply.type(result.contentType);
      return reply.status(result.status ?? 200).send(await encodeFor(req, reply, result.contentType ? result.body : jsonBody(reply, result.body)));
    };
    const spanName = `${method} ${url}`;
    /** The request served inside its span, which is then ended with the outcome. */
    const traced = async (span: Span, req: FastifyRequest, reply: FastifyReply) => {
      // Only a trace that is recorded, or the caller's own, can be looked up by its id.
      if (isSpanContextValid(span.spanContext())) {
        const { traceId } = span.spanContext();
        reply.header(TRACE_ID_HEADER, traceId);
        noteRequest(req, { traceId });
      }
      try {
        return await respond(req, reply);
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    };
    app.route({
      method,
      url,
      // One server span per request, continuing a caller's traceparent; every gRPC call and
      // event below it joins the same trace.
      handler: (req: FastifyRequest, reply: FastifyReply) => {
        const active = context.active();
        const parent = propagation.extract(active, req.headers);
        const attributes = { 'http.request.method': method, 'http.route': url, 'edge.request_id': req.id };
        const span = tracer.startSpan(spanName, { kind: SpanKind.SERVER, attributes }, parent);
        // Without a tracer and without a caller's trace the span is a placeholder that carries
        // nothing: making it the active span would change nothing below, so it is not bound.
        if (parent === active && !isSpanContextValid(span.spanContext())) return respond(req, reply);
        return context.with(trace.setSpan(parent, span), traced, undefined, span, req, reply);
      },
    });
  };
}

export type Router = ReturnType<typeof createRouter>;
