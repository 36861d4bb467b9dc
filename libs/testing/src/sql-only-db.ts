/**
 * A Kysely that compiles Postgres SQL without a database, for tests that pin the SQL a
 * compiler emits (filters, role matching).
 */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';

/** A Kysely for `.compile()` only; executing a query returns no rows. */
export function createSqlOnlyDb<DB>(): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}
