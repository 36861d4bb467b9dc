/**
 * Data integrity runs (`/database/check-data-integrity`, `/fix-data-integrity`): the services
 * that keep references to entities other services own are asked, one after the other, what
 * dangles (and to remove it when fixing). One run at a time across every replica: the single
 * row in `integrity_runs` is claimed atomically; a claim older than the longest run is taken over.
 */
import { sql, type Kysely } from 'kysely';
import { ZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import { detached } from '@edge/rpc';
import type { SessionDb } from './store/controller.js';

/** A service's check: what dangles, and whether it was removed. */
export type IntegrityCheck = (fix: boolean) => Promise<Array<{ description: string; fixed: boolean }>>;

/** Results kept beyond this are summarised (tooManyErrors), as OpenZiti caps its list. */
const MAX_RESULTS = 1000;
/** A run claimed longer ago than this is taken to have died with its replica. */
const STALE_MS = 10 * 60_000;

export interface IntegrityRunsTable {
  id: boolean;
  running: boolean;
  fix: boolean;
  started_at: Date | null;
  ended_at: Date | null;
  error: string;
  results: unknown;
}

/** The state of the last (or current) run. */
export interface IntegrityState {
  inProgress: boolean;
  fixingErrors: boolean;
  startTime: Date | null;
  endTime: Date | null;
  error: string;
  results: Array<{ description: string; fixed: boolean }>;
  tooManyErrors: boolean;
}

/** Builds the runner over the session schema and the checks of the other services. */
export function createIntegrityRuns(db: Kysely<SessionDb>, checks: IntegrityCheck[], log: Logger) {
  async function finish(results: IntegrityState['results'], error: string) {
    await db.updateTable('integrity_runs').set({
      running: false, ended_at: sql<Date>`now()`, error, results: JSON.stringify(results.slice(0, MAX_RESULTS + 1)) as never,
    }).where('id', '=', true).execute();
  }

  return {
    /** Claims the run and starts it in the background; RATE_LIMITED while one is running. */
    async start(fix: boolean): Promise<void> {
      const claimed = await db.updateTable('integrity_runs')
        .set({ running: true, fix, started_at: sql<Date>`now()`, ended_at: null, error: '', results: '[]' as never })
        .where('id', '=', true)
        .where((eb) => eb.or([eb('running', '=', false), eb('started_at', '<', new Date(Date.now() - STALE_MS))]))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) throw new ZitiError('RATE_LIMITED', { causeMessage: 'a data integrity run is in progress' });
      // Not bound by the deadline of the call that started it, which is answered at once.
      void detached(async () => {
        const results: IntegrityState['results'] = [];
        try {
          for (const check of checks) results.push(...(await check(fix)));
          await finish(results, '');
        } catch (err) {
          log.warn({ err }, 'data integrity run failed');
          await finish(results, (err as Error).message).catch(() => undefined);
        }
      });
    },

    async state(): Promise<IntegrityState> {
      const r = await db.selectFrom('integrity_runs').selectAll().where('id', '=', true).executeTakeFirstOrThrow();
      const results = (r.results as IntegrityState['results']) ?? [];
      return {
        inProgress: r.running, fixingErrors: r.fix, startTime: r.started_at, endTime: r.ended_at, error: r.error,
        results: results.slice(0, MAX_RESULTS), tooManyErrors: results.length > MAX_RESULTS,
      };
    },
  };
}
