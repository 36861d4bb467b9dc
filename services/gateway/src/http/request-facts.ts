/**
 * What handling a request learned that its access line and audit event report: who called
 * (the API session, once resolved, or the one a login opened), what it created, the trace it
 * ran in, and the error code it ended with. Kept beside the request, never in the answer.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

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

/** Where the facts of a request are kept: on the request itself, so no table has to find them. */
const FACTS = Symbol('edge.requestFacts');

type WithFacts = FastifyRequest & { [FACTS]?: RequestFacts };

/**
 * Declares the slot on every request of `app`, so requests keep one shape (requests of an app
 * without it get the slot when first noted).
 */
export function installRequestFacts(app: FastifyInstance): void {
  app.decorateRequest(FACTS, undefined);
}

/** Adds to what is known about `req`. */
export function noteRequest(req: FastifyRequest, more: RequestFacts): void {
  const known = (req as WithFacts)[FACTS];
  if (known) Object.assign(known, more);
  else (req as WithFacts)[FACTS] = { ...more };
}

/** What is known about `req` (nothing yet: `{}`). */
export function requestFacts(req: FastifyRequest): RequestFacts {
  return (req as WithFacts)[FACTS] ?? {};
}
