/**
 * Data integrity runs (`/database/check-data-integrity`, `/fix-data-integrity`): the services
 * that keep references to entities other services own are asked, one after the other, what
 * dangles (and to remove it when fixing). One run at a time across every replica: the single
 * row in `integrity_runs` is claimed atomically; a claim older than the longest run is taken over.
 */
import { ZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import { detached } from '@edge/rpc';
import type { IntegrityStore } from './store/integrity.js';

/** A service's check: what dangles, and whether it was removed. */
export type IntegrityCheck = (fix: boolean) => Promise<Array<{ description: string; fixed: boolean }>>;

/** Results kept beyond this are summarised (tooManyErrors), as OpenZiti caps its list. */
const MAX_RESULTS = 1000;
/** A run claimed longer ago than this is taken to have died with its replica. */
const STALE_MS = 10 * 60_000;

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

/** Builds the runner over the integrity run store and the checks of the other services. */
export function createIntegrityRuns(runs: IntegrityStore, checks: IntegrityCheck[], log: Logger) {
  const finish = (results: IntegrityState['results'], error: string) => runs.finish(results.slice(0, MAX_RESULTS + 1), error);

  return {
    /** Claims the run and starts it in the background; RATE_LIMITED while one is running. */
    async start(fix: boolean): Promise<void> {
      if (!(await runs.claim(fix, new Date(Date.now() - STALE_MS)))) throw new ZitiError('RATE_LIMITED', { causeMessage: 'a data integrity run is in progress' });
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
      const r = await runs.get();
      const results = (r.results as IntegrityState['results']) ?? [];
      return {
        inProgress: r.running, fixingErrors: r.fix, startTime: r.started_at, endTime: r.ended_at, error: r.error,
        results: results.slice(0, MAX_RESULTS), tooManyErrors: results.length > MAX_RESULTS,
      };
    },
  };
}

export type IntegrityRuns = ReturnType<typeof createIntegrityRuns>;
