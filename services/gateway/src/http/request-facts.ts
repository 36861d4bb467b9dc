/**
 * What handling a request learned that its access line and audit event report: who called
 * (the API session, once resolved, or the one a login opened), what it created, the trace it
 * ran in, and the error code it ended with. Kept beside the request, never in the answer.
 */
import type { FastifyRequest } from 'fastify';

export interface RequestFacts {
  /** The identity acting (the caller's), or the one a login succeeded for. */
  identityId?: string;
  /** The caller's API session, or the one a login opened. */
  apiSessionId?: string;
  /** The id of the entity a create made (from its 201 answer). */
  createdId?: string;
  /** The catalog code of the error the request ended with. */
  errorCode?: string;
  /** The trace the request ran in, when tracing is active. */
  traceId?: string;
}

const facts = new WeakMap<FastifyRequest, RequestFacts>();

/** Adds to what is known about `req`. */
export function noteRequest(req: FastifyRequest, more: RequestFacts): void {
  const known = facts.get(req);
  if (known) Object.assign(known, more);
  else facts.set(req, { ...more });
}

/** What is known about `req` (nothing yet: `{}`). */
export function requestFacts(req: FastifyRequest): RequestFacts {
  return facts.get(req) ?? {};
}
