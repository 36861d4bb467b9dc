/**
 * The one way routes are declared: access check, request context for gRPC calls, envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/** Registers routes under a prefix with the session cache at hand. */
export function createRouter(app: FastifyInstance, cache: SessionCache) {
  return (method: Method, url: string, access: Access, handler: Handler) => {
    app.route({
      method,
      url,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const principal = await authorize(req, access, cache);
        const ctx = { requestId: req.id, actorId: principal?.apiSession?.identityId };
        const result = await runWithContext(ctx, () => handler(req, principal));
        expiryHeaders(reply, principal);
        if (result.headers) reply.headers(result.headers);
        if (result.contentType) reply.type(result.contentType);
        return reply.status(result.status ?? 200).send(result.body);
      },
    });
  };
}

export type Router = ReturnType<typeof createRouter>;
