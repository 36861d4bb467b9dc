/**
 * The fastify instance: HTTPS with optional client certificates, 1 MiB bodies, the parsers the
 * APIs need, request ids, and OpenZiti errors for everything.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from '@edge/logging';
import { installErrorHandlers } from './errors.js';

export const BODY_LIMIT = 1024 * 1024;

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
  }) as unknown as FastifyInstance;
  // PEM bodies (CSRs, certificates) arrive as text for enrollment and CA verification.
  app.addContentTypeParser(['text/plain', 'application/x-pem-file', 'application/pkcs10'], { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
  app.addHook('onResponse', async (req, reply) => {
    req.log.debug({ method: req.method, url: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  installErrorHandlers(app);
  return app;
}
