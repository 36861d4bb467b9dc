/**
 * Every error a request can end in becomes the OpenZiti error envelope. Expected failures keep
 * their catalog code; anything else is UNHANDLED 500 with the request id, logged with its stack,
 * never sent. No answer quotes fastify's codes or messages.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZitiError, isZitiError } from '@edge/errors';
import { error as errorEnvelope } from '@edge/envelope';
import { AuthRequired, wwwAuthenticate } from './access.js';
import { createMethodIndex } from './methods.js';
import { noteRequest } from './request-facts.js';
import type { RouteEntry } from './route.js';

const NOT_JSON = 'the body is not valid JSON';

/** The OpenZiti error for an error fastify raised while reading the request, if it is one. */
function fromFastify(err: FastifyError): ZitiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ZitiError('REQUEST_ENTITY_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: 'no operation takes a body of this content type' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: NOT_JSON });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: 'the body is not as long as Content-Length says' });
  }
  // secure-json-parse: invalid JSON, or a __proto__ / constructor.prototype key
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON|prototype/i.test(err.message))) {
    return new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: NOT_JSON });
  }
  if (err.statusCode === 413) return new ZitiError('REQUEST_ENTITY_TOO_LARGE');
  // Any other request fastify refuses is the client's to fix; its own wording stays here.
  if (err.code?.startsWith('FST_') && err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new ZitiError('COULD_NOT_VALIDATE', { causeMessage: 'the request could not be read' });
  }
  return undefined;
}

/** Installs the error handler. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const ziti = isZitiError(err) ? err : fromFastify(err);
    noteRequest(req, { errorCode: ziti?.code ?? 'UNHANDLED' });
    if (!ziti) {
      req.log.error({ err }, 'unhandled error');
      const e = new ZitiError('UNHANDLED');
      return reply.status(e.status).send(errorEnvelope(e, req.id));
    }
    if (ziti.code === 'UNAVAILABLE' && ziti.cause !== undefined) {
      // The client learns only that a dependency is unavailable; which one, and where, is logged.
      req.log.warn({ err: ziti.cause }, 'answered UNAVAILABLE');
    }
    if (err instanceof AuthRequired) {
      reply.header('WWW-Authenticate', wwwAuthenticate(err.reason));
      return reply.status(401).send(errorEnvelope(new ZitiError('UNAUTHORIZED'), req.id));
    }
    return reply.status(ziti.status).send(errorEnvelope(ziti, req.id));
  });
}

/**
 * Installs the handler of requests no route matches: 405 with `Allow` when the path is served
 * with other methods, else 404 naming the request (as the client sent it).
 */
export function installNotFoundHandler(app: FastifyInstance, registry: readonly RouteEntry[]): void {
  const index = createMethodIndex(registry);
  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    const allowed = index.allowed(req.url);
    if (allowed.length && !allowed.includes(req.method)) {
      noteRequest(req, { errorCode: 'METHOD_NOT_ALLOWED' });
      reply.header('Allow', allowed.join(', '));
      return reply.status(405).send(errorEnvelope(new ZitiError('METHOD_NOT_ALLOWED'), req.id));
    }
    // the path as the client sent it, before the default-API rewrite
    const path = (req.originalUrl ?? req.url).split('?')[0];
    const e = new ZitiError('NOT_FOUND', { causeMessage: `no route for ${req.method} ${path}` });
    noteRequest(req, { errorCode: e.code });
    return reply.status(404).send(errorEnvelope(e, req.id));
  });
}
