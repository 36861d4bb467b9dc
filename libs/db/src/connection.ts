/**
 * The database a process talks to: a pg pool (distributed mode) or one embedded PGlite
 * (standalone mode), shared by every service in the process.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from '@edge/logging';
import { PostgresDialect, type Dialect, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { createMutex } from './mutex.js';
import { processMetrics } from '@edge/metrics';
import { createPgliteDialect } from './pglite-dialect.js';
import { asDatabaseError } from './errors.js';
import { countStatement } from './statements.js';
import { isStalePrepared, preparedName } from './prepared.js';

/** An open database; create per-service query builders with `createDb`. */
export interface DbConnection {
  /** `postgres` for a server reached by URL, `pglite` for the embedded database. */
  readonly kind: 'postgres' | 'pglite';
  /**
   * A Kysely dialect over this connection. Destroying a Kysely built on it leaves the
   * connection open; only `close()` ends it.
   */
  dialect(): Dialect;
  /** Ends the pool or closes the embedded database. Idempotent. */
  close(): Promise<void>;
}

/** Options of `openConnection`. */
export interface OpenConnectionOptions {
  /** A postgres:// URL; when absent the embedded database is used. */
  url?: string;
  /** Embedded database: data lives in `<dataDir>/pgdata`; `':memory:'` keeps it in memory. */
  dataDir?: string;
  /** Maximum pool size (pg only), default 10. */
  poolSize?: number;
  /**
   * Embedded database only: how long a holder of its one session may sit without running a
   * query before the session is taken back (its transaction rolled back), default 5000.
   */
  idleSessionTimeoutMs?: number;
  log?: Logger;
}

/**
 * Far above any transaction of the services (a few queries, no remote call: ARCHITECTURE.md
 * rule 7) and below the gRPC deadline, so a stuck holder frees the session before the requests
 * queued behind it give up.
 */
const DEFAULT_IDLE_SESSION_TIMEOUT_MS = 5_000;
/**
 * How long a query waits for a pool connection (a new one, or a free one under load) before it
 * fails as UNAVAILABLE: a database that is down answers a client with 503 within this, instead of
 * holding the request to its deadline.
 */
const CONNECTION_TIMEOUT_MS = 2_000;
const INT8_OID = 20;
const INT8_ARRAY_OID = 1016;
const INT4_ARRAY_OID = 1007;
const builtinParser = pg.types.getTypeParser as (oid: number, format: 'text' | 'binary') => (value: string) => unknown;

/** Opens a pg pool when `url` is given, else an embedded PGlite in `dataDir`. */
export async function openConnection(opts: OpenConnectionOptions): Promise<DbConnection> {
  if (opts.url) return openPool(opts.url, opts);
  if (!opts.dataDir) throw new Error('openConnection: dataDir is required without a database url');
  return openPglite(opts.dataDir, opts.idleSessionTimeoutMs ?? DEFAULT_IDLE_SESSION_TIMEOUT_MS, opts.log);
}

function openPool(url: string, opts: OpenConnectionOptions): DbConnection {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    // TCP keep-alive: a server that vanished without closing (host down) is noticed.
    keepAlive: true,
    // No JIT compilation: every statement here is a short indexed read or write, and a statement
    // with many branches over tables the planner has no statistics for yet (a new deployment)
    // would otherwise be compiled on its first runs, at a cost of a second each. An `options`
    // parameter in the URL replaces this.
    options: '-c jit=off',
    // int8 (counts, sizes) as number rather than string; timestamptz stays Date.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === INT8_OID) return (value: string) => Number(value);
        if (oid === INT8_ARRAY_OID) return builtinParser(INT4_ARRAY_OID, format ?? 'text');
        return builtinParser(oid, format ?? 'text');
      }) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', (err) => opts.log?.warn({ err }, 'idle postgres client failed'));
  processMetrics().watchPool('postgres', () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
  let closed: Promise<void> | undefined;
  return {
    kind: 'postgres',
    dialect: () => new PostgresDialect({
      pool: { connect: () => connectClient(pool, opts.log), end: async () => {} },
    }),
    close: () => (closed ??= pool.end()),
  };
}

/**
 * A pool client whose failures to connect or to keep the connection reject as UNAVAILABLE
 * (see errors.ts), so that every query of every service reports a database outage as one.
 *
 * While checked out, a client whose connection drops also emits `error`; pg-pool listens only
 * to idle clients, and an `error` nobody listens to ends the process. The query under way
 * rejects with the same error, so the listener here only keeps the process alive.
 */
/** Per pooled connection, the named statements it runs unnamed (see prepared.ts). */
const unprepared = new WeakMap<pg.PoolClient, Set<string>>();
function unpreparedOn(client: pg.PoolClient): Set<string> {
  let names = unprepared.get(client);
  if (!names) unprepared.set(client, (names = new Set()));
  return names;
}

async function connectClient(pool: pg.Pool, log?: Logger): Promise<PostgresPoolClient> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw asDatabaseError(err);
  }
  const onError = (err: Error) => log?.warn({ err }, 'postgres connection lost while in use');
  client.on('error', onError);
  const query = (...args: unknown[]): unknown => {
    const [first, values] = args;
    countStatement(typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text ?? '');
    const name = typeof first === 'string' ? preparedName(first) : undefined;
    if (name !== undefined && !unpreparedOn(client).has(name)) {
      return client.query({ name, text: first as string, values: values as unknown[] }).catch((err: unknown) => {
        if (!isStalePrepared(err)) throw asDatabaseError(err);
        unpreparedOn(client).add(name);
        return client.query(first as string, values as unknown[]).catch((again: unknown) => { throw asDatabaseError(again); });
      });
    }
    const r = (client.query as (...a: unknown[]) => unknown).apply(client, args);
    return r instanceof Promise ? r.catch((err: unknown) => { throw asDatabaseError(err); }) : r;
  };
  return {
    query: query as PostgresPoolClient['query'],
    release: () => {
      client.off('error', onError);
      client.release();
    },
  };
}

async function openPglite(dataDir: string, idleTimeoutMs: number, log?: Logger): Promise<DbConnection> {
  let path: string | undefined;
  if (dataDir !== ':memory:') {
    path = join(dataDir, 'pgdata');
    await mkdir(path, { recursive: true });
  }
  const pglite = await PGlite.create({
    dataDir: path,
    parsers: { [INT8_OID]: (value: string) => Number(value) },
  });
  log?.info({ dataDir: path ?? ':memory:' }, 'embedded database open');
  const mutex = createMutex();
  let closed: Promise<void> | undefined;
  return {
    kind: 'pglite',
    dialect: () => createPgliteDialect(pglite, { mutex, idleTimeoutMs, log }),
    // Wait for the holder of the session (a running transaction) before closing.
    close: () => (closed ??= mutex.lock().then(async (release) => {
      try { await pglite.close(); } finally { release(); }
    })),
  };
}
