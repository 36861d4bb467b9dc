/**
 * Micro-batching: calls that arrive together, or while earlier ones are still being answered,
 * share one round trip. The calls made in one turn of the event loop go together at its end
 * while fewer than `maxInFlight` batches are out, so a call arriving by itself waits for nothing
 * but that turn, and the many calls one batch fans out into (each item's look-up) go as one
 * batch, not as a first alone and the rest after it; the calls arriving while the limit is
 * reached wait, and go together as the next batch as soon as one settles.
 */
import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { fieldError } from '@edge/errors';
import type { RequestContext } from './context.js';

/**
 * The most items a batched method takes in one call. Batchers send far fewer (64 by default);
 * a larger call is refused whole, before any item is handled, so one call cannot hold a
 * service's connections and memory for an unbounded time.
 */
export const MAX_BATCH_ITEMS = 1000;

/** Refuses a batched call of more than {@link MAX_BATCH_ITEMS} items: COULD_NOT_VALIDATE naming `field` (INVALID_ARGUMENT over gRPC). */
export function assertBatchSize(items: readonly unknown[], field: string): void {
  if (items.length > MAX_BATCH_ITEMS) throw fieldError(field, `must hold at most ${MAX_BATCH_ITEMS} items`, items.length);
}

/** Options of {@link createBatcher}. */
export interface BatcherOptions {
  /** Items in one batch at most (default 64). */
  maxBatch?: number;
  /** Batches sent and not yet settled at most (default 2). */
  maxInFlight?: number;
}

/** Runs a function in the context `resource` was created in. */
const withinContext = (resource: AsyncResource) => <R>(fn: () => R): R => resource.runInAsyncScope(fn);

/** Runs a function in the current context (of a call that opens no batch, whose context is not kept). */
const runNow = <R>(fn: () => R): R => fn();

interface Waiting<I, O> {
  item: I;
  /** Runs a function in the async context the call was made in (request, trace). */
  within: <R>(fn: () => R) => R;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

/**
 * A function sending `item` through `send` with the items of other calls made meanwhile.
 * `send` answers one result per item, in order: a value, or an `Error` rejecting that item only;
 * when it rejects (or answers a result array of another length), every item of the batch rejects.
 *
 * `send` runs in the async context (request context, trace) of the batch's first call: when it
 * calls other services for many callers, it sets the request context itself (see
 * {@link contextOfMany}).
 */
export function createBatcher<I, O>(send: (items: I[]) => Promise<Array<O | Error>>, opts: BatcherOptions = {}): (item: I) => Promise<O> {
  const maxBatch = Math.max(1, opts.maxBatch ?? 64);
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 2);
  const waiting: Array<Waiting<I, O>> = [];
  let inFlight = 0;

  const settle = (batch: Array<Waiting<I, O>>, results: Array<O | Error>) => {
    if (!Array.isArray(results) || results.length !== batch.length) {
      const err = new Error(`a batch of ${batch.length} was answered with ${Array.isArray(results) ? results.length : 'no'} results`);
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const r = results[i];
      if (r instanceof Error) w.reject(r);
      else w.resolve(r as O);
    });
  };

  const dispatch = (batch: Array<Waiting<I, O>>) => {
    inFlight++;
    let sent: Promise<Array<O | Error>>;
    try {
      sent = batch[0]!.within(() => send(batch.map((w) => w.item)));
    } catch (err) {
      sent = Promise.reject(err);
    }
    Promise.resolve(sent).then(
      (results) => {
        inFlight--;
        settle(batch, results);
        next();
      },
      (err: unknown) => {
        inFlight--;
        for (const w of batch) w.reject(err);
        next();
      },
    );
  };

  const next = () => {
    while (inFlight < maxInFlight && waiting.length > 0) dispatch(waiting.splice(0, maxBatch));
  };

  let scheduled = false;
  const atTurnEnd = () => {
    scheduled = false;
    next();
  };

  return (item) => new Promise<O>((resolve, reject) => {
    // The async context is kept only for a call that will open a batch (keeping it costs more
    // than the rest of a call here), in a resource of its own: `AsyncLocalStorage.snapshot()`
    // binds a function, which defines two deprecated accessors on it each time.
    waiting.push({ item, resolve, reject, within: waiting.length % maxBatch === 0 ? withinContext(new AsyncResource('edge.batch')) : runNow });
    if (!scheduled && inFlight < maxInFlight) {
      scheduled = true;
      setImmediate(atTurnEnd);
    }
  });
}

/**
 * The context of one call made for many requests: the first one's request id (the logs of the
 * call name one of them), no actor or principal (the call acts for nobody in particular: each
 * item names its own), and the latest of their deadlines (none when one has none), so the call
 * is not cut short for the requests still listening.
 */
export function contextOfMany(contexts: readonly RequestContext[]): RequestContext {
  let deadline: number | undefined = 0;
  for (const c of contexts) deadline = c.deadline === undefined || deadline === undefined ? undefined : Math.max(deadline, c.deadline);
  return { requestId: contexts[0]?.requestId ?? randomUUID(), ...(deadline ? { deadline } : {}) };
}

/** Whether a call failed because the service does not know the method: a replica of an older version. */
export function isUnimplemented(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === grpc.status.UNIMPLEMENTED;
}

/**
 * A batch's send that falls back to one call per item when the service answers the batched
 * method as unknown: during a rolling upgrade, a replica of the version before that method
 * still serves the single one. Each item's error is answered at its position.
 */
export function orOneByOne<I, O>(batch: (items: I[]) => Promise<Array<O | Error>>, one: (item: I) => Promise<O>): (items: I[]) => Promise<Array<O | Error>> {
  return async (items) => {
    try {
      return await batch(items);
    } catch (err) {
      if (!isUnimplemented(err)) throw err;
      return Promise.all(items.map((item) => one(item).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
    }
  };
}
