/**
 * Cross-origin requests from browser consoles, answered as OpenZiti's controller does
 * (controller/api/cors.go, gorilla/handlers CORS around every API): a preflight from an allowed
 * origin is answered 200 on any path, before routing and authentication; every answer to an
 * allowed origin says so; an origin not allowed gets no CORS header at all, and its request is
 * served as any other (so its preflight gets the 404/405 an OPTIONS gets, which browsers refuse).
 * The default allows every origin, as OpenZiti's `AllowedOrigins("*")`; then the answer is the
 * literal `*`, never the caller's origin echoed, so no page can send a browser's client
 * certificate along (gorilla refuses that too).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The methods the APIs serve (OpenZiti's AllowedMethods). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/**
 * Request headers a page may send: OpenZiti's (content-type, accept, authorization, zt-session)
 * and the others this controller reads (MFA removal, token enrollment, request and trace ids).
 */
const ALLOWED_HEADERS = new Set([
  'accept', 'authorization', 'content-type', 'zt-session',
  'mfa-validation-code', 'ziti-token-issuer-id', 'x-request-id', 'traceparent', 'tracestate',
]);
/** Answer headers a page may read: the session token and its expiry, request and trace ids, why a 401 or 405. */
const EXPOSED_HEADERS = ['zt-session', 'expiration-seconds', 'expires-at', 'x-request-id', 'x-trace-id', 'ziti-instance-id', 'www-authenticate', 'allow'].join(', ');

/** The CORS answer of one deployment's allowed origins. */
export interface Cors {
  /**
   * Adds the CORS headers an answer to `req` needs; true when `req` is a preflight from an
   * allowed origin, which the caller then answers without going on.
   */
  decorate(req: FastifyRequest, reply: FastifyReply): boolean;
}

/** The CORS answer for `allowedOrigins` (`*`, or origins as browsers send them). */
export function createCors(allowedOrigins: readonly string[]): Cors {
  const any = allowedOrigins.includes('*');
  const listed = new Set(allowedOrigins);
  return {
    decorate(req, reply) {
      const origin = req.headers.origin;
      if (typeof origin !== 'string' || !(any || listed.has(origin))) return false;
      reply.header('access-control-allow-origin', any ? '*' : origin);
      // The answer differs by origin, so caches must key on it.
      if (!any) reply.header('vary', 'Origin');
      reply.header('access-control-allow-credentials', 'true');
      const requested = req.headers['access-control-request-method'];
      if (req.method !== 'OPTIONS' || typeof requested !== 'string') {
        reply.header('access-control-expose-headers', EXPOSED_HEADERS);
        return false;
      }
      reply.header('access-control-allow-methods', METHODS.join(', '));
      // The headers asked for that may be sent (as gorilla answers); a browser refuses the rest.
      const headers = String(req.headers['access-control-request-headers'] ?? '')
        .split(',').map((h) => h.trim().toLowerCase()).filter((h) => ALLOWED_HEADERS.has(h));
      if (headers.length) reply.header('access-control-allow-headers', headers.join(', '));
      return true;
    },
  };
}

/** Answers CORS before anything else runs for a request (registered as the first onRequest hook). */
export function installCors(app: FastifyInstance, cors: Cors): void {
  app.addHook('onRequest', (req, reply, done) => {
    // OpenZiti answers a preflight 200 (handlers.OptionStatusCode(200)), with no body; no later
    // hook runs for it.
    if (cors.decorate(req, reply)) return void reply.status(200).send();
    done();
  });
}
