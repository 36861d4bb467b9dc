/**
 * Periodic reconciliation ("react, then reconcile", STYLE.md principle 9, not only at start-up):
 * what a lost or late event left behind is repaired within an interval. The cost is bounded: a
 * run works in steps (a batch each) until a time budget is spent, and the next run continues
 * where it stopped (the cursor is kept in the `reconciliations` table). One replica runs it per
 * interval: a run claims the row of its name, and a claimed row is skipped by the others.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Logger } from '@edge/logging';
import type { OutboxDatabase } from './tables.js';

/** One bounded step: resumes after `cursor` (undefined: from the start); the next cursor, or undefined when the pass is complete. */
export type ReconcileStep = (cursor: string | undefined) => Promise<string | undefined>;

/** The ids of one page of a peer's list: after `afterId`, up to and including `throughId` (either open). */
export interface PageRange {
  afterId?: string;
  throughId?: string;
}

/**
 * The rows of a read model whose `id` falls in the page `range`, compared by code point as the
 * owners page their lists (filters and sorts on text are `collate "C"`), whatever this database's
 * collation: on a locale collation (en_US) a plain comparison takes in ids of other pages. An
 * index on `(id COLLATE "C")` serves it.
 */
export function idInPage(range: PageRange): RawBuilder<boolean> {
  const after = range.afterId === undefined ? sql`true` : sql`(id collate "C") > ${range.afterId}`;
  const through = range.throughId === undefined ? sql`true` : sql`(id collate "C") <= ${range.throughId}`;
  return sql<boolean>`(${after} and ${through})`;
}

/** Options of {@link scheduleReconcile}. */
export interface ReconcileOptions {
  /** The service's database (its schema holds the `reconciliations` table). */
  db: Kysely<any>;
  /** Names the reconciliation (one row, one cursor). */
  name: string;
  step: ReconcileStep;
  /** Time between runs, across every replica. */
  intervalMs: number;
  /** Steps of one run stop once this much time went (a step is never cut short). Default 5 s. */
  budgetMs?: number;
  log: Logger;
}

/** A scheduled reconciliation. */
export interface Reconciliation {
  /**
   * Runs now unless another replica holds the claim: steps until the pass completes or the
   * budget is spent. Resolves to whether this call ran it. With `toEnd` (a read model's fill at
   * start-up), the run goes on until the pass completes, keeping its cursor and its claim at each
   * budget's end: a model answers from itself, not from its owner, only once it is filled.
   * Either stops after the step under way once `signal` aborts (the service stopping).
   */
  runNow(opts?: { toEnd?: boolean; signal?: AbortSignal }): Promise<boolean>;
  /** Stops scheduling and waits for a running run. */
  stop(): Promise<void>;
}

/** Schedules `step` every `intervalMs` (with jitter, so replicas do not wake together). */
export function scheduleReconcile(opts: ReconcileOptions): Reconciliation {
  const db = opts.db as Kysely<OutboxDatabase>;
  const budgetMs = opts.budgetMs ?? 5_000;
  // A run holds its claim this long at most; a replica that died mid-run frees it after that.
  const holdMs = budgetMs * 2 + 60_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;
  let stopped = false;

  /** The cursor to resume from when this replica won the claim, else null. */
  async function claim(): Promise<{ cursor: string | undefined } | null> {
    const row = await db.insertInto('reconciliations')
      .values({ name: opts.name, claimed_until: sql<Date>`now() + ${holdMs} * interval '1 millisecond'` as never })
      .onConflict((oc) => oc.column('name').doUpdateSet({ claimed_until: (eb) => eb.ref('excluded.claimed_until') })
        .where('reconciliations.claimed_until', '<', sql<Date>`now()`))
      .returning('cursor').executeTakeFirst();
    return row ? { cursor: row.cursor ?? undefined } : null;
  }

  /**
   * Keeps the cursor and leaves the next run to whichever replica comes after the interval; after
   * a failed step, to whichever tries first (a start-up fill retried while a peer comes up must
   * not wait a whole interval).
   */
  async function release(cursor: string | undefined, failed: boolean): Promise<void> {
    const until = failed ? sql<Date>`now() - interval '1 second'` : sql<Date>`now() + ${opts.intervalMs} * interval '1 millisecond'`;
    await db.updateTable('reconciliations')
      .set({ cursor: cursor ?? null, claimed_until: until as never })
      .where('name', '=', opts.name).execute();
  }

  /** Keeps the cursor of a run going on past its budget, and its claim for another hold. */
  async function keep(cursor: string): Promise<void> {
    await db.updateTable('reconciliations')
      .set({ cursor, claimed_until: sql<Date>`now() + ${holdMs} * interval '1 millisecond'` as never })
      .where('name', '=', opts.name).execute();
  }

  async function run(toEnd = false, signal?: AbortSignal): Promise<boolean> {
    const claimed = await claim();
    if (!claimed) return false;
    let cursor = claimed.cursor;
    let until = Date.now() + budgetMs;
    let failed = true;
    try {
      for (;;) {
        cursor = await opts.step(cursor);
        if (cursor === undefined || stopped || signal?.aborted) break;
        if (Date.now() >= until) {
          if (!toEnd) break;
          await keep(cursor);
          until = Date.now() + budgetMs;
        }
      }
      failed = false;
    } finally {
      await release(cursor, failed);
    }
    return true;
  }

  function schedule(): void {
    if (stopped) return;
    const jitter = 0.75 + Math.random() * 0.5;
    timer = setTimeout(() => {
      running = run().catch((err: unknown) => {
        opts.log.warn({ err, reconciliation: opts.name }, 'reconciliation failed, will run again');
        return false;
      }).finally(() => {
        running = undefined;
        schedule();
      });
    }, opts.intervalMs * jitter).unref();
  }

  schedule();
  return {
    async runNow(o) {
      await running;
      return run(o?.toEnd, o?.signal);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
