/**
 * A Kysely dialect over one embedded PGlite instance. PGlite has a single session, so the
 * driver hands out that session under a mutex: a query holds it for its own duration, a
 * transaction from `begin` to `commit`/`rollback`, and everything else waits its turn.
 */
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Mutex } from './mutex.js';

/** Creates a dialect over `pglite`; `mutex` must be shared by every dialect over the same instance. */
export function createPgliteDialect(pglite: PGlite, mutex: Mutex): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PgliteDriver(pglite, mutex),
    createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

class PgliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite, readonly release: () => void) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Like pg: without parameters use the simple protocol, so multi-statement scripts
    // (migrations) run; with parameters use the extended protocol.
    const result = query.parameters.length === 0
      ? (await this.pglite.exec(query.sql)).at(-1)
      : await this.pglite.query<R>(query.sql, [...query.parameters]);
    return {
      rows: (result?.rows ?? []) as R[],
      numAffectedRows: BigInt(result?.affectedRows ?? 0),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite');
  }
}

class PgliteDriver implements Driver {
  constructor(private readonly pglite: PGlite, private readonly mutex: Mutex) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.mutex.lock();
    return new PgliteConnection(this.pglite, release);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PgliteConnection).release();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'start transaction';
    if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) text += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(text));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  /** The instance belongs to the DbConnection, which closes it. */
  async destroy(): Promise<void> {}
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
