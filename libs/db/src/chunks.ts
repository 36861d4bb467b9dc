/**
 * Bulk writes in bounded statements: Postgres takes at most 65535 parameters per statement, and
 * very large statements are slow to plan, so rows go in chunks.
 */

/** Calls `write` with consecutive slices of `rows` of at most `size` rows, one after another. */
export async function inChunks<T>(rows: readonly T[], write: (chunk: T[]) => Promise<unknown>, size = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await write(rows.slice(i, i + size));
}
