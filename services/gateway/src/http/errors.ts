/**
 * Every error a request can end in becomes the OpenZiti error envelope. Expected failures keep
 * their catalog code; anything else is UNHANDLED 500 with the request id, logged with its stack,
 * never sent.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZitiError, isZitiError } from '@edge/errors';
import { error as errorEnvelope } from '@edge/envelope';
import { AuthRequired, wwwAuthenticate } from './access.js';

function fromFastify(err: FastifyError): ZitiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ZitiError('REQUEST_ENTITY_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: err.message });
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: 'the body is not valid JSON' });
  }
  if (err.statusCode === 413) return new ZitiError('REQUEST_ENTITY_TOO_LARGE');
  return undefined;
}

/** Installs the error and not-found handlers. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const ziti = isZitiError(err) ? err : fromFastify(err);
    if (!ziti) {
      req.log.error({ err }, 'unhandled error');
      const e = new ZitiError('UNHANDLED');
      return reply.status(e.status).send(errorEnvelope(e, req.id));
    }
    if (err instanceof AuthRequired) {
      reply.header('WWW-Authenticate', wwwAuthenticate(err.reason));
      return reply.status(401).send(errorEnvelope(new ZitiError('UNAUTHORIZED'), req.id));
    }
    return reply.status(ziti.status).send(errorEnvelope(ziti, req.id));
  });
  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    const e = new ZitiError('NOT_FOUND', { causeMessage: `no route for ${req.method} ${req.url.split('?')[0]}` });
    return reply.status(404).send(errorEnvelope(e, req.id));
  });
}
