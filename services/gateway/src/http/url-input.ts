/**
 * What a URL can carry that no route takes: path ids fastify cannot decode or that exceed its
 * parameter length, and NUL characters in path ids or query values (which no store can hold).
 * Each becomes an OpenZiti error before authentication or any handler, without echoing the URL.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZitiError } from '@edge/errors';
import { error as errorEnvelope } from '@edge/envelope';
import { noteRequest } from './request-facts.js';

const NUL = '\u0000';

/** An id that cannot be decoded, or is longer than any id, names nothing. */
function noSuchEntity(): ZitiError {
  return new ZitiError('NOT_FOUND', { causeMessage: 'no entity has the id given in the path' });
}

/** The error for a NUL in a query parameter: the filter language's own code for `filter`. */
function nulInQuery(name: string): ZitiError {
  const reason = 'must not contain a NUL character';
  if (name === 'filter') return new ZitiError('INVALID_FILTER', { cause: { field: name, reason }, causeMessage: `${name} ${reason}` });
  return new ZitiError('COULD_NOT_VALIDATE', { cause: { field: name, reason, value: null }, causeMessage: `${name}: ${reason}` });
}

const hasNul = (v: unknown): boolean => (typeof v === 'string' ? v.includes(NUL) : Array.isArray(v) && v.some(hasNul));

/** The error a request's decoded path ids and query values call for, if any. */
export function urlInputError(params: unknown, query: unknown): ZitiError | undefined {
  if (Object.values((params ?? {}) as Record<string, unknown>).some(hasNul)) return noSuchEntity();
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (hasNul(value) || name.includes(NUL)) return nulInQuery(name.replaceAll(NUL, '') || '(query)');
  }
  return undefined;
}

/**
 * fastify's `frameworkErrors`: the router could not decode a path id (FST_ERR_BAD_URL) or found
 * it longer than `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH). Either way no entity has that id,
 * as OpenZiti answers an id it cannot find.
 */
export function onFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const known = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  if (!known) req.log.error({ err }, 'unhandled router error');
  const e = known ? noSuchEntity() : new ZitiError('UNHANDLED');
  noteRequest(req, { errorCode: e.code });
  void reply.status(e.status).send(errorEnvelope(e, req.id));
}

/** Refuses NULs in path ids and query values before anything else runs. */
export function installUrlInputGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    // A NUL in a decoded id or value comes from `%00` in the URL (or a raw one, should the
    // HTTP parser ever let one through): without either there is nothing to look for.
    const url = req.url;
    done(url.includes('%00') || url.includes(NUL) ? urlInputError(req.params, req.query) : undefined);
  });
}
