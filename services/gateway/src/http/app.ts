/**
 * The fastify instance: HTTPS with optional client certificates, the client API as the default
 * handler, 1 MiB bodies, the parsers the APIs need, request ids on every answer, an access log,
 * CORS for browser consoles, and OpenZiti errors for everything, down to requests the HTTP parser refuses.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { lazyChild, type Logger } from '@edge/logging';
import { processMetrics, UNMATCHED_ROUTE } from '@edge/metrics';
import { installBodyParsers } from './body.js';
import { createClientErrorHandler } from './client-error.js';
import { createCors, installCors } from './cors.js';
import { rewriteToDefaultApi } from './default-api.js';
import { installErrorHandlers } from './errors.js';
import { installRequestFacts } from './request-facts.js';
import { logAnswer, tagAnswer } from './request-log.js';
import { installUrlInputGuard, onFrameworkError } from './url-input.js';

export const BODY_LIMIT = 1024 * 1024;

/** Both APIs' primary authentication route (not /authenticate/mfa, a second factor). */
const AUTHENTICATE_ROUTE = /^\/edge\/(client|management)\/v1\/authenticate$/;
/** The `method` values counted by name; anything else is counted as `other` to bound the label. */
const AUTH_METHODS = new Set(['password', 'cert', 'ext-jwt']);

export interface TlsMaterial {
  cert: string;
  key: string;
  ca: string;
}

/**
 * Records an answered request: its metrics, its access line and its audit event. `route` is the
 * route pattern, or UNMATCHED_ROUTE when no route matched.
 */
function recordAnswer(req: FastifyRequest, reply: FastifyReply, route: string): void {
  processMetrics().httpRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
  if (req.method === 'POST' && AUTHENTICATE_ROUTE.test(route)) {
    const method = String((req.query as { method?: unknown }).method);
    processMetrics().authentication(AUTH_METHODS.has(method) ? method : 'other', reply.statusCode < 300 ? 'success' : 'failure');
  }
  logAnswer(req, reply, route);
}

/**
 * Builds the HTTPS app (routes are added by the caller); pages of `corsAllowedOrigins` may call
 * it from a browser (cors.ts).
 */
export function createApp(tls: TlsMaterial, log: Logger, corsAllowedOrigins: readonly string[]): FastifyInstance {
  const cors = createCors(corsAllowedOrigins);
  const app = Fastify({
    https: { cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
    bodyLimit: BODY_LIMIT,
    loggerInstance: log,
    // The access line comes from recordAnswer, at info, without the headers fastify would log.
    logController: new LogController({ disableRequestLogging: true }),
    // req.log: most requests write nothing with it, so the pino child is made on first use.
    childLoggerFactory: (logger, bindings, opts) =>
      (Object.keys(opts).length ? logger.child(bindings, opts) : lazyChild(logger as Logger, bindings)) as FastifyBaseLogger,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: false, ignoreDuplicateSlashes: true },
    rewriteUrl: (req) => rewriteToDefaultApi(req.url ?? '/'),
    // Answered before any hook runs: tagged, CORS-decorated and recorded here.
    frameworkErrors: (err, req, reply) => {
      reply.raw.once('finish', () => recordAnswer(req, reply, UNMATCHED_ROUTE));
      tagAnswer(req, reply);
      if (cors.decorate(req, reply)) return void (reply as FastifyReply).status(200).send();
      onFrameworkError(err, req, reply);
    },
    clientErrorHandler: createClientErrorHandler(log),
  }) as unknown as FastifyInstance;
  installRequestFacts(app);
  // Hooks take `done` rather than returning a promise: they do not wait for anything, and a
  // promise per hook and request is work for nothing.
  app.addHook('onRequest', (req, reply, done) => {
    tagAnswer(req, reply);
    done();
  });
  installCors(app, cors);
  installBodyParsers(app, BODY_LIMIT);
  installUrlInputGuard(app);
  // The route pattern, not the URL, so ids do not become label values.
  app.addHook('onResponse', (req, reply, done) => {
    recordAnswer(req, reply, req.routeOptions.url ?? UNMATCHED_ROUTE);
    done();
  });
  installErrorHandlers(app);
  return app;
}
