/**
 * Pinning hot-path SQL: the lines of each statement's analysed plan (run with its parameters)
 * that read a whole table of `tables`. A branch that did not run ("never executed") reads
 * nothing and is left out.
 */
import { CompiledQuery, type Kysely } from 'kysely';

export async function seqScansOf(db: Kysely<any>, statements: readonly CompiledQuery[], tables: readonly string[]): Promise<string[]> {
  const scans: string[] = [];
  for (const q of statements) {
    const plan = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, costs off) ${q.sql}`, [...q.parameters]));
    const lines = plan.rows.map((r) => r['QUERY PLAN']);
    scans.push(...lines.filter((l) => !/never executed/.test(l) && tables.some((table) => new RegExp(`Seq Scan on ${table}\\b`).test(l))).map((l) => `${l.trim()}  ← ${q.sql.slice(0, 80)}`));
  }
  return scans;
}
