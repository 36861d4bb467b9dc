/** Per-service query builders over a shared connection. */
import { CompiledQuery, Kysely, sql } from 'kysely';
import type { DbConnection } from './connection.js';
import { quoteSchemaName } from './schema-name.js';
import { traceQueries } from './tracing.js';

/**
 * A Kysely whose queries address tables in `schema`. Cheap: services sharing one connection
 * each create their own. `destroy()` on it does not close the connection.
 *
 * On the embedded database a transaction holds the only session: inside
 * `db.transaction().execute(trx => ...)` use `trx`, never `db`, or the query waits forever.
 */
export function createDb<DB>(conn: DbConnection, schema: string): Kysely<DB> {
  quoteSchemaName(schema);
  return new Kysely<DB>({ dialect: conn.dialect(), log: traceQueries(schema) }).withSchema(schema);
}

/** Drops `schema` and everything in it (tests). */
export async function dropSchema(conn: DbConnection, schema: string): Promise<void> {
  const db = new Kysely<unknown>({ dialect: conn.dialect() });
  await sql.raw(`drop schema if exists ${quoteSchemaName(schema)} cascade`).execute(db);
}

/**
 * Runs one SQL statement with `$1`-style parameters on the connection, naming schemas itself
 * (tests and tools that reach state no API exposes); the rows it returns.
 */
export async function executeSql<R = Record<string, unknown>>(conn: DbConnection, text: string, params: readonly unknown[] = []): Promise<R[]> {
  const db = new Kysely<unknown>({ dialect: conn.dialect() });
  return (await db.executeQuery<R>(CompiledQuery.raw(text, [...params]))).rows;
}
