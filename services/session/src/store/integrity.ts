/**
 * Queries of the data integrity run: the single row in `integrity_runs`, claimed atomically.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { IntegrityRunsTable, SessionDb } from './db.js';

/** The stored run, as the row holds it. */
export type IntegrityRunRow = Selectable<IntegrityRunsTable>;

/** Creates the integrity run store over the session schema. */
export function createIntegrityStore(db: Kysely<SessionDb>) {
  return {
    /** Claims the run when none is running or the running one was claimed before `staleBefore`; false when taken. */
    async claim(fix: boolean, staleBefore: Date): Promise<boolean> {
      const claimed = await db.updateTable('integrity_runs')
        .set({ running: true, fix, started_at: sql<Date>`now()`, ended_at: null, error: '', results: '[]' as never })
        .where('id', '=', true)
        .where((eb) => eb.or([eb('running', '=', false), eb('started_at', '<', staleBefore)]))
        .executeTakeFirst();
      return Number(claimed.numUpdatedRows) > 0;
    },

    /** Ends the run with its results and error (empty when none). */
    async finish(results: unknown[], error: string): Promise<void> {
      await db.updateTable('integrity_runs').set({
        running: false, ended_at: sql<Date>`now()`, error, results: JSON.stringify(results) as never,
      }).where('id', '=', true).execute();
    },

    async get(): Promise<IntegrityRunRow> {
      return db.selectFrom('integrity_runs').selectAll().where('id', '=', true).executeTakeFirstOrThrow();
    },
  };
}

export type IntegrityStore = ReturnType<typeof createIntegrityStore>;
