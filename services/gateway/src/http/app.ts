/**
 * The fastify instance: HTTPS with optional client certificates, the client API as the default
 * handler, 1 MiB bodies, the parsers the APIs need, request ids, and OpenZiti errors for
 * everything, down to requests the HTTP parser refuses.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from '@edge/logging';
import { processMetrics, UNMATCHED_ROUTE } from '@edge/metrics';
import { installBodyParsers } from './body.js';
import { onClientError } from './client-error.js';
import { rewriteToDefaultApi } from './default-api.js';
import { installErrorHandlers } from './errors.js';
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

/** Builds the HTTPS app (routes are added by the caller). */
export function createApp(tls: TlsMaterial, log: Logger): FastifyInstance {
  const app = Fastify({
    https: { cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
    bodyLimit: BODY_LIMIT,
    loggerInstance: log,
    // Per-request lines come from the onResponse hook below, at debug level.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: false, ignoreDuplicateSlashes: true },
    rewriteUrl: (req) => rewriteToDefaultApi(req.url ?? '/'),
    frameworkErrors: onFrameworkError,
    clientErrorHandler: onClientError,
  }) as unknown as FastifyInstance;
  installBodyParsers(app, BODY_LIMIT);
  installUrlInputGuard(app);
  const metrics = processMetrics();
  app.addHook('onResponse', async (req, reply) => {
    // The route pattern, not the URL, so ids do not become label values.
    const route = req.routeOptions.url ?? UNMATCHED_ROUTE;
    metrics.httpRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    if (req.method === 'POST' && AUTHENTICATE_ROUTE.test(route)) {
      const method = String((req.query as { method?: unknown }).method);
      metrics.authentication(AUTH_METHODS.has(method) ? method : 'other', reply.statusCode < 300 ? 'success' : 'failure');
    }
    req.log.debug({ method: req.method, url: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  installErrorHandlers(app);
  return app;
}
