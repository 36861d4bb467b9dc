/**
 * Bulk writes in bounded statements: Postgres takes at most 65535 parameters per statement, and
 * very large statements are slow to plan, so rows go in chunks.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely } from 'kysely';

const progress = new AsyncLocalStorage<(rows: number) => void>();

/**
 * Runs `fn`, telling `onRows` how many rows each chunk that {@link inChunks} writes under it
 * held, once written: the progress of a bulk import.
 */
export function withRowProgress<T>(onRows: (rows: number) => void, fn: () => T): T {
  return progress.run(onRows, fn);
}

/**
 * Settles tables just filled in bulk, as Postgres advises after a bulk load: ANALYZE refreshes
 * the planner's statistics, so the next queries plan well, and VACUUM marks their pages all
 * visible, so an index-only scan reads no table page and the first reads do not each write the
 * rows' hint bits. Without it the pages stay unmarked until
 * autovacuum comes to them (never, where it is off). Not in a transaction: VACUUM refuses one.
 */
export async function vacuumAnalyzeTables(db: Kysely<any>, schema: string, tables: readonly string[]): Promise<void> {
  for (const t of tables) await sql`vacuum (analyze) ${sql.id(schema, t)}`.execute(db);
}

/** Calls `write` with consecutive slices of `rows` of at most `size` rows, one after another. */
export async function inChunks<T>(rows: readonly T[], write: (chunk: T[]) => Promise<unknown>, size = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += size) {
    const chunk = rows.slice(i, i + size);
    await write(chunk);
    progress.getStore()?.(chunk.length);
  }
}
