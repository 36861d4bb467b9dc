import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { CallerPrincipal } from './principal.js';

/** What travels with every call: the request id, who is making the change, and until when. */
export interface RequestContext {
  requestId: string;
  /** Identity id of the caller whose request caused this work, when known. */
  actorId?: string;
  /**
   * The principal of the caller the gateway authenticated, when the work is done for one; it
   * travels with every call made for the request (see principal.ts for how far it is trusted).
   */
  principal?: CallerPrincipal;
  /**
   * When the caller stops waiting (epoch ms): set by the gateway per request and by the gRPC
   * server from the incoming call's deadline. Every outgoing call ends before it, so no work is
   * asked for after the caller gave up. Cleared once the call is answered (see {@link handleWithContext}).
   */
  deadline?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (with `args`, if any) with `ctx` as the current request context. */
export function runWithContext<T, A extends unknown[] = []>(ctx: RequestContext, fn: (...args: A) => T, ...args: A): T {
  return storage.run(ctx, fn, ...args);
}

/**
 * Handles one call or request with `ctx` as its context. Once `fn` settles, the deadline no
 * longer applies: work it deliberately left running (a background sweep started by the call) is
 * not bound by the deadline of a call that has been answered.
 */
export function handleWithContext<T>(ctx: RequestContext, fn: () => Promise<T>): Promise<T> {
  const answered = () => {
    ctx.deadline = undefined;
  };
  let running: Promise<T>;
  try {
    running = Promise.resolve(storage.run(ctx, fn));
  } catch (err) {
    answered();
    return Promise.reject(err);
  }
  // One derived promise, where an async function with try/finally makes two.
  return running.then(
    (value) => {
      answered();
      return value;
    },
    (err: unknown) => {
      answered();
      throw err;
    },
  );
}

/**
 * Runs `fn` with the current context's deadline set `ms` from now, longer or shorter than it
 * was: for an operation the edge knows to be slow (a database snapshot).
 */
export function withDeadline<T>(ms: number, fn: () => T): T {
  return storage.run({ ...currentContext(), deadline: Date.now() + ms }, fn);
}

/**
 * Runs `fn` as work of the current request that outlives its answer (a run started by the call
 * and left running): same request id and actor, no deadline.
 */
export function detached<T>(fn: () => T): T {
  return storage.run({ ...currentContext(), deadline: undefined }, fn);
}

/** The current request context, or a fresh one with a new request id. */
export function currentContext(): RequestContext {
  return storage.getStore() ?? { requestId: randomUUID() };
}
