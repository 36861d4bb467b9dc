/**
 * A database that cannot be reached is reported as UNAVAILABLE, quickly, by every query; the
 * pool recovers when it is back. The shared Postgres is reached through a relay the test cuts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isZitiError } from '@edge/errors';
import { startTcpProxy, type TcpProxy } from '@edge/testing';
import { executeSql, isDatabaseUnavailable, openConnection, type DbConnection } from './index.js';

const DATABASE_URL = new URL(process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
let proxy: TcpProxy;
let conn: DbConnection;

beforeAll(async () => {
  proxy = await startTcpProxy(Number(DATABASE_URL.port || 5432), DATABASE_URL.hostname);
  const url = new URL(DATABASE_URL);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  conn = await openConnection({ url: url.toString(), poolSize: 2 });
});
afterAll(async () => {
  await conn?.close();
  await proxy?.close();
});

async function failure(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = Date.now();
  const err = await p.then(() => undefined, (e: unknown) => e);
  return { err, ms: Date.now() - started };
}

describe('a database that cannot be reached', () => {
  it('fails queries with UNAVAILABLE at once when connections are refused, and serves again when it is back', async () => {
    expect(await executeSql(conn, 'select 1 as one')).toEqual([{ one: 1 }]);
    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      const { err, ms } = await failure(executeSql(conn, 'select 1'));
      expect(isZitiError(err) && err.code === 'UNAVAILABLE', String(err)).toBe(true);
      expect((err as { causeMessage?: string }).causeMessage).toBe('the database is not available');
      expect(ms).toBeLessThan(2_500);
    }
    await proxy.restore();
    expect(await executeSql(conn, 'select 2 as two')).toEqual([{ two: 2 }]);
  });

  it('gives up on a server that does not answer within about two seconds', async () => {
    await proxy.blackhole();
    // Let the pool drop its idle connections, so the query needs a new one.
    await new Promise((r) => setTimeout(r, 200));
    try {
      const { err, ms } = await failure(executeSql(conn, 'select 1'));
      expect(isZitiError(err) && err.code === 'UNAVAILABLE', String(err)).toBe(true);
      expect(ms).toBeGreaterThan(1_500);
      expect(ms).toBeLessThan(3_500);
    } finally {
      await proxy.restore();
    }
    expect(await executeSql(conn, 'select 3 as three')).toEqual([{ three: 3 }]);
  });

  it('reports a wrong query as what it is, not as UNAVAILABLE', async () => {
    const { err } = await failure(executeSql(conn, 'select * from no_such_table_anywhere'));
    expect(isZitiError(err)).toBe(false);
    expect((err as { code?: string }).code).toBe('42P01');
  });

  it('reports the embedded database once closed as UNAVAILABLE', async () => {
    const embedded = await openConnection({ dataDir: ':memory:' });
    await embedded.close();
    const { err } = await failure(executeSql(embedded, 'select 1'));
    expect(isZitiError(err) && err.code === 'UNAVAILABLE', String(err)).toBe(true);
  });
});

describe('isDatabaseUnavailable', () => {
  it('recognises connection-level SQLSTATEs and socket errors, not query errors', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300', 'ECONNREFUSED', 'ETIMEDOUT']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    for (const code of ['23505', '42P01', '40001', '22P02']) expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(false);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });
});
