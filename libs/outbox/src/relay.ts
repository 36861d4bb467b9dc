/**
 * The relay: publishes what the outbox holds and deletes what the bus acknowledged. It claims a
 * batch with one short statement (rows nobody claims, skipping rows another relay is claiming at
 * that moment), publishes without holding any transaction or lock (ARCHITECTURE.md rule 7: on the
 * embedded database the session is everyone's), then deletes the published rows. A claim lasts
 * `claimMs`; a relay that died mid-batch leaves its rows to be claimed again after that.
 *
 * Order: a row is claimed only when no earlier row with its ordering key is left out of the
 * claim (held by another relay, or backing off), so one entity's events go out one relay at a
 * time and in order. A failed publish ends the batch: the rows not published back off together.
 */
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { sql, type Kysely } from 'kysely';
import type { Bus } from '@edge/bus';
import { precompiled } from '@edge/db';
import type { Logger } from '@edge/logging';
import { processMetrics } from '@edge/metrics';
import type { OutboxDatabase } from './tables.js';

/** Timings of the relay. */
export interface RelayOptions {
  /** Rows claimed per statement. Default 100. */
  batchSize?: number;
  /** How long a claim keeps other relays off the rows. Default 30 s (above a publish's timeout). */
  claimMs?: number;
  /** First wait after a failed publish, doubled per failure in a row. Default 100 ms. */
  minBackoffMs?: number;
  /** Longest wait after failed publishes. Default 2 s, so a bus that is back is used soon. */
  maxBackoffMs?: number;
}

interface ClaimedRow {
  id: string | number;
  subject: string;
  data: unknown;
  headers: unknown;
  attempts: number;
}

/** What one round did: rows claimed, rows published, and the error that stopped it, if any. */
export interface RoundResult {
  claimed: number;
  published: number;
  error?: unknown;
}

const parse = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

/** One relay's rounds over the outbox of one schema. */
export function createRelayRounds(db: Kysely<OutboxDatabase>, bus: Bus, name: string, log: Logger, opts: RelayOptions = {}) {
  const batchSize = opts.batchSize ?? 100;
  const claimMs = opts.claimMs ?? 30_000;
  const metrics = processMetrics();

  // The statements of every event, compiled once per relay and kept prepared (see @edge/db's precompiled).
  const claimStatement = precompiled(0, () => db
    .with('candidates', (qb) => qb.selectFrom('outbox').select(['id', 'ordering_key'])
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', sql<Date>`now()`)]))
      .orderBy('id').limit(batchSize).forUpdate().skipLocked())
    .updateTable('outbox')
    .set({ claimed_until: sql<Date>`now() + ${claimMs} * interval '1 millisecond'`, attempts: sql<number>`attempts + 1` })
    .where('id', 'in', (qb) => qb.selectFrom('candidates as c').select('c.id')
      .where((eb) => eb.or([
        eb('c.ordering_key', 'is', null),
        eb.not(eb.exists(eb.selectFrom('outbox as e').select(sql.lit(1).as('one'))
          .whereRef('e.ordering_key', '=', 'c.ordering_key').whereRef('e.id', '<', 'c.id')
          .where('e.id', 'not in', eb.selectFrom('candidates').select('candidates.id')))),
      ])))
    .returning(['id', 'subject', 'data', 'headers', 'attempts']));
  // The ids as one array, so the statement is the same for any number of them.
  const deleteStatement = precompiled(1, (ids: Array<string | number>) => db.deleteFrom('outbox')
    .where(sql<boolean>`id = any(${ids}::bigint[])`));

  /** Claims up to `batchSize` rows in one statement (committed at once); in `id` order. */
  async function claim(): Promise<ClaimedRow[]> {
    const rows = await claimStatement(db);
    return (rows as ClaimedRow[]).sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** Publishes one row inside the trace of the write that recorded it. */
  async function publish(row: ClaimedRow): Promise<void> {
    const headers = parse(row.headers) as Record<string, string>;
    await context.with(propagation.extract(ROOT_CONTEXT, headers), () => bus.publish(row.subject, parse(row.data), headers));
  }

  return {
    /**
     * Claims a batch, publishes it in order until a publish fails, deletes what went out, and
     * has what did not wait `backoffMs` before any relay claims it again.
     */
    async round(backoffMs: number): Promise<RoundResult> {
      const rows = await claim();
      const done: Array<string | number> = [];
      let error: unknown;
      for (const row of rows) {
        try {
          await publish(row);
          done.push(row.id);
        } catch (err) {
          error = err;
          break;
        }
      }
      if (done.length > 0) await deleteStatement(db, done);
      if (done.length > 0) metrics.outboxPublished(name, done.length);
      if (error !== undefined) {
        const left = rows.slice(done.length);
        metrics.outboxFailed(name);
        log.warn({ err: error, outbox: name, left: left.length, attempts: left[0]?.attempts, backoffMs }, 'outbox publish failed, will retry');
        await db.updateTable('outbox').set({ claimed_until: sql<Date>`now() + ${backoffMs} * interval '1 millisecond'` })
          .where('id', 'in', left.map((r) => r.id)).execute();
      }
      return { claimed: rows.length, published: done.length, error };
    },

    /** How many events wait to be published. */
    async pending(): Promise<number> {
      const r = await db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(r.n);
    },

    batchSize,
  };
}
