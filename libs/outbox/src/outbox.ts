/**
 * A service's outbox: events are recorded in the same transaction as the change that causes
 * them, and a relay publishes them to the bus after the commit. A write therefore succeeds
 * whether or not the bus is reachable, and an event exists exactly when its change committed.
 * The relay is woken right after a commit made through {@link Outbox.transaction} and also polls,
 * for rows left by a failed publish, a crashed replica or another process.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Bus } from '@edge/bus';
import { precompiled } from '@edge/db';
import type { Logger } from '@edge/logging';
import { processMetrics } from '@edge/metrics';
import { newEvent, type EnqueueOptions } from './event.js';
import { createRelayRounds, type RelayOptions } from './relay.js';
import type { OutboxDatabase } from './tables.js';

/** Options of {@link createOutbox}. */
export interface OutboxOptions extends RelayOptions {
  /** The service's database (its schema holds the `outbox` table). */
  db: Kysely<any>;
  bus: Bus;
  /** The service's name, for logs and metrics. */
  name: string;
  log: Logger;
  /** How often the relay looks for events nobody woke it for. Default 1000 ms. */
  pollMs?: number;
  /**
   * How long {@link Outbox.transaction} waits, after the commit, for the relay to publish what it
   * recorded, so that in the normal case its events are out before the write is answered (as a
   * publish after commit was). Never longer than this: a slow or absent bus delays nothing.
   * Default 1000 ms.
   */
  awaitRelayMs?: number;
}

/** Records events with a service's writes and relays them to the bus. */
export interface Outbox<DB = any> {
  /**
   * Records an event in `trx` (the transaction of the change it announces); returns its event id.
   * Nothing is published if the transaction rolls back.
   */
  enqueue(trx: Kysely<any>, subject: string, data: unknown, opts?: EnqueueOptions): Promise<string>;
  /**
   * Runs `fn` in a transaction of the service's database, then (after `afterCommit`, for caches
   * of this process to forget what changed) wakes the relay and waits (at most `awaitRelayMs`)
   * for the round that publishes what the transaction recorded.
   */
  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>, opts?: { afterCommit?: () => void }): Promise<T>;
  /** Starts relaying: a first round now, then on every wake and poll. */
  start(): void;
  /** Stops relaying, waiting for a running round; what is left stays for the next start. */
  stop(): Promise<void>;
  /**
   * Asks for a round as soon as the running one (if any) is over; resolves when the relay has
   * gone through every event committed before the call, or stopped at a failed publish.
   */
  wake(): Promise<void>;
  /**
   * Relays until no event can be claimed right now (tests, and a clean shutdown); how many were
   * published. Throws what stopped a round (the bus is down).
   */
  flush(): Promise<number>;
  /** How many events wait to be published. */
  pending(): Promise<number>;
}

/**
 * Records an event in `trx` without a relay of this process: for writers outside the running
 * service (the bulk import), whose events the service's relay publishes when it next looks.
 */
export async function enqueueEvent(trx: Kysely<any>, subject: string, data: unknown, opts?: EnqueueOptions): Promise<string> {
  return (await enqueueEvents(trx, subject, [data], opts))[0]!;
}

/**
 * Records events on `subject`, one per payload of `data`, in `trx` with one statement (a change
 * of many rows announces each); their event ids.
 */
export async function enqueueEvents(trx: Kysely<any>, subject: string, data: readonly unknown[], opts?: EnqueueOptions): Promise<string[]> {
  if (data.length === 0) return [];
  const rows = data.map((d) => newEvent(subject, d, opts));
  await (trx as Kysely<OutboxDatabase>).insertInto('outbox').values(rows).execute();
  return rows.map((r) => r.event_id);
}

/** Creates the outbox of one service; the relay runs between `start()` and `stop()`. */
export function createOutbox<DB = any>(opts: OutboxOptions): Outbox<DB> {
  const db = opts.db as Kysely<OutboxDatabase>;
  const rounds = createRelayRounds(db, opts.bus, opts.name, opts.log, opts);
  const minBackoff = opts.minBackoffMs ?? 100;
  const maxBackoff = opts.maxBackoffMs ?? 2_000;
  const pollMs = opts.pollMs ?? 1_000;
  const awaitRelayMs = opts.awaitRelayMs ?? 1_000;
  let failures = 0;
  let running: Promise<void> | undefined;
  let again = false;
  let started = false;
  let poll: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backingOff = false;
  /** Wakers waiting for the current drain: it covers every commit made before they woke it. */
  let waiting: Array<() => void> = [];

  const backoff = () => Math.min(minBackoff * 2 ** failures, maxBackoff);

  /** Rounds until one claims less than a full batch; after a failure, waits and tries again. */
  async function drain(): Promise<void> {
    do {
      again = false;
      const r = await rounds.round(backoff()).catch((error: unknown) => ({ claimed: 0, published: 0, error }));
      if (r.error !== undefined) {
        // The database or the bus is down: try again after the back-off, not on every wake.
        const wait = backoff();
        failures++;
        again = false;
        backingOff = true;
        retry = setTimeout(() => {
          backingOff = false;
          wake();
        }, wait).unref();
        return;
      }
      failures = 0;
      if (r.claimed === rounds.batchSize) again = true;
    } while (again && started);
  }

  function wake(): Promise<void> {
    if (!started || backingOff) return Promise.resolve();
    const done = new Promise<void>((resolve) => waiting.push(resolve));
    if (running) {
      again = true;
      return done;
    }
    // A drain loops while woken during a round, so when it ends it has covered every waker.
    running = drain().finally(() => {
      running = undefined;
      const served = waiting;
      waiting = [];
      served.forEach((resolve) => resolve());
    });
    return done;
  }

  processMetrics().watchOutbox(opts.name, () => rounds.pending());

  // The insert of every event this service records, compiled once and kept prepared; it runs in
  // the caller's transaction of the same database.
  const insertOne = precompiled(5, (eventId: string, subject: string, orderingKey: string | null, data: string, headers: string) =>
    db.insertInto('outbox').values({ event_id: eventId, subject, ordering_key: orderingKey, data, headers }));

  return {
    async enqueue(trx, subject, data, enqueueOpts) {
      const row = newEvent(subject, data, enqueueOpts);
      await insertOne(trx, row.event_id, row.subject, row.ordering_key, row.data, row.headers);
      return row.event_id;
    },

    async transaction(fn, txOpts) {
      const result = await (opts.db as Kysely<DB>).transaction().execute(fn);
      txOpts?.afterCommit?.();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([wake(), new Promise((resolve) => { timer = setTimeout(resolve, awaitRelayMs); })]);
      clearTimeout(timer);
      return result;
    },

    start() {
      if (started) return;
      started = true;
      poll = setInterval(wake, pollMs).unref();
      wake();
    },

    async stop() {
      started = false;
      clearInterval(poll);
      clearTimeout(retry);
      backingOff = false;
      await running;
      waiting.splice(0).forEach((resolve) => resolve());
    },

    wake,

    async flush() {
      let total = 0;
      for (;;) {
        const r = await rounds.round(backoff());
        if (r.error !== undefined) throw r.error;
        total += r.published;
        if (r.claimed < rounds.batchSize) return total;
      }
    },

    pending: () => rounds.pending(),
  };
}
