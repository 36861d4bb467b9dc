/**
 * Raw-SQL migrations inside a service's schema, safe when several replicas start at once.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@edge/logging';
import { Kysely, sql, type Transaction } from 'kysely';
import type { DbConnection } from './connection.js';
import { quoteSchemaName } from './schema-name.js';

/**
 * Creates `schema` and `<schema>.migrations` if missing, then applies every `*.sql` file of
 * `migrationsDir` not yet recorded there, in file-name order, each in its own transaction
 * with `search_path` set to the schema (so the SQL uses unqualified names). Every transaction
 * takes a transaction-level advisory lock keyed on the schema, so concurrent replicas apply
 * each file exactly once. Returns the names applied by this call.
 */
export async function migrate(
  conn: DbConnection,
  schema: string,
  migrationsDir: string,
  log?: Logger,
): Promise<string[]> {
  const quoted = quoteSchemaName(schema);
  const files = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort();
  const db = new Kysely<unknown>({ dialect: conn.dialect() });
  await db.transaction().execute(async (trx) => {
    await lockSchema(trx, schema);
    await sql.raw(`create schema if not exists ${quoted}`).execute(trx);
    await sql.raw(
      `create table if not exists ${quoted}.migrations (name text primary key, applied_at timestamptz not null default now())`,
    ).execute(trx);
  });
  const applied: string[] = [];
  for (const name of files) {
    const text = await readFile(join(migrationsDir, name), 'utf8');
    const done = await db.transaction().execute(async (trx) => {
      await lockSchema(trx, schema);
      const seen = await sql`select 1 from ${sql.id(schema, 'migrations')} where name = ${name}`.execute(trx);
      if (seen.rows.length > 0) return false;
      await sql.raw(`set local search_path to ${quoted}`).execute(trx);
      if (text.trim() !== '') await sql.raw(text).execute(trx);
      await sql`insert into ${sql.id(schema, 'migrations')} (name, applied_at) values (${name}, now())`.execute(trx);
      return true;
    });
    if (done) {
      applied.push(name);
      log?.info({ schema, migration: name }, 'migration applied');
    }
  }
  return applied;
}

/** Serialises migrators of one schema across processes until the transaction ends. */
async function lockSchema(trx: Transaction<unknown>, schema: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`edge.migrate:${schema}`}))`.execute(trx);
}
