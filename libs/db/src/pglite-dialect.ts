/**
 * A Kysely dialect over one embedded PGlite instance. PGlite has a single session, so the
 * driver hands out that session under a mutex: a query holds it for its own duration, a
 * transaction from `begin` to `commit`/`rollback`, and everything else waits its turn.
 *
 * A holder that sits idle (no query running) longer than the idle limit loses the session, as
 * Postgres's idle_in_transaction_session_timeout ends such a session: its transaction is rolled
 * back, the session goes to the next in line, and the holder's next query or its commit fails.
 * Without that, a transaction waiting for something that waits for the session (its own query
 * outside it, a call to another service of the process) would wedge every service for good.
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
import type { Logger } from '@edge/logging';
import type { Mutex } from './mutex.js';
import { countStatement } from './statements.js';
import { asDatabaseError } from './errors.js';

/** How the dialect shares the session. */
export interface PgliteSessionOptions {
  /** Shared by every dialect over the same instance. */
  mutex: Mutex;
  /** How long a holder may keep the session without running a query. */
  idleTimeoutMs: number;
  log?: Logger;
}

/** Creates a dialect over `pglite`. */
export function createPgliteDialect(pglite: PGlite, session: PgliteSessionOptions): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PgliteDriver(pglite, session),
    createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

class PgliteConnection implements DatabaseConnection {
  #idle: NodeJS.Timeout | undefined;
  #inTransaction = false;
  #takenBack = false;

  constructor(private readonly pglite: PGlite, private readonly release: () => void, private readonly session: PgliteSessionOptions) {
    this.#arm();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#takenBack) throw this.#takenBackError();
    clearTimeout(this.#idle);
    countStatement(query.sql);
    try {
      // Like pg: without parameters use the simple protocol, so multi-statement scripts
      // (migrations) run; with parameters use the extended protocol.
      const result = query.parameters.length === 0
        ? (await this.pglite.exec(query.sql)).at(-1)
        : await this.pglite.query<R>(query.sql, [...query.parameters]);
      return {
        rows: (result?.rows ?? []) as R[],
        numAffectedRows: BigInt(result?.affectedRows ?? 0),
      };
    } catch (err) {
      throw asDatabaseError(err);
    } finally {
      this.#arm();
    }
  }

  /** Runs a transaction-control statement and records whether a transaction is open after it. */
  async control(text: string, inTransaction: boolean): Promise<void> {
    await this.executeQuery(CompiledQuery.raw(text));
    this.#inTransaction = inTransaction;
  }

  /** Whether the session was taken back (its transaction is already rolled back). */
  get takenBack(): boolean {
    return this.#takenBack;
  }

  /** Gives the session back (idempotent); once taken back, the take-back hands it on after its rollback. */
  close(): void {
    clearTimeout(this.#idle);
    if (!this.#takenBack) this.release();
  }

  #arm(): void {
    if (this.#takenBack) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.#takeBack(), this.session.idleTimeoutMs).unref();
  }

  async #takeBack(): Promise<void> {
    this.#takenBack = true;
    const { idleTimeoutMs, log } = this.session;
    log?.error({ idleTimeoutMs, inTransaction: this.#inTransaction }, 'the embedded database session was held idle too long; rolled back and handed on');
    try {
      if (this.#inTransaction) await this.pglite.exec('rollback');
    } catch (err) {
      log?.error({ err }, 'rolling back the idle transaction failed');
    } finally {
      this.release();
    }
  }

  #takenBackError(): Error {
    return new Error(`the embedded database session was taken back after ${this.session.idleTimeoutMs} ms idle in a transaction: no query may wait for a call, or for the session, while holding it`);
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite');
  }
}

class PgliteDriver implements Driver {
  constructor(private readonly pglite: PGlite, private readonly session: PgliteSessionOptions) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.session.mutex.lock();
    return new PgliteConnection(this.pglite, release, this.session);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PgliteConnection).close();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'start transaction';
    if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) text += ` ${settings.accessMode}`;
    await (connection as PgliteConnection).control(text, true);
  }

  /** Fails when the session was taken back: the transaction's work is gone, not committed. */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).control('commit', false);
  }

  /** Nothing to do when the session was taken back: the transaction was rolled back then. */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as PgliteConnection;
    if (!c.takenBack) await c.control('rollback', false);
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
