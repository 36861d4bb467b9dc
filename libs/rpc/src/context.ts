import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What travels with every call: the request id and who is making the change. */
export interface RequestContext {
  requestId: string;
  /** Identity id of the caller whose request caused this work, when known. */
  actorId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the current request context (gateway per request, gRPC per call). */
export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The current request context, or a fresh one with a new request id. */
export function currentContext(): RequestContext {
  return storage.getStore() ?? { requestId: randomUUID() };
}
