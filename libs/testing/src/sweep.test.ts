import { mkdirSync, mkdtempSync, rmSync, utimesSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, executeSql, openConnection } from '@edge/db';
import { connect } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import { createTeardown, dropTestPrefix, isStaleTestStream, sweepStaleTestPrefixes, testPrefix, testPrefixOf, testPrefixTime, STALE_AFTER_MS, TEST_DIR_PREFIX, testPrefixRemains, withTeardown } from './index.js';

const infra = {
  databaseUrl: process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
};
const HOUR = 3600_000;
const made: string[] = [];

/** Makes what a test prefix makes: two schemas and its stream. */
async function occupy(prefix: string): Promise<void> {
  made.push(prefix);
  const conn = await openConnection({ url: infra.databaseUrl, poolSize: 1 });
  for (const s of ['auth', 'kf_pki']) await executeSql(conn, `create schema "${prefix}_${s}"`);
  await conn.close();
  const nc = await connect({ servers: infra.natsUrl });
  await (await nc.jetstreamManager()).streams.add({ name: `EDGE_${prefix}`, subjects: [`${prefix}.edge.>`] });
  await nc.close();
}

const remains = (prefix: string) => testPrefixRemains(infra, prefix);

afterAll(async () => {
  for (const p of made) await dropTestPrefix(infra, p);
});

describe('test prefixes', () => {
  it('name the second they were made and are told apart from other names', () => {
    const at = Date.UTC(2026, 10, 25, 12, 0, 7);
    const p = testPrefix(at);
    expect(p).toMatch(/^t[0-9a-z]{7}[0-9a-f]{6}$/);
    expect(testPrefix(at)).not.toBe(p);
    expect(testPrefixTime(p, at)).toBe(at);
    expect(testPrefixOf(`${p}_auth`)).toBe(p);
    expect(testPrefixOf(`${p}_kf_pki`)).toBe(p);
    expect(testPrefixOf(`EDGE_${p}`)).toBe(p);
    for (const other of ['tb25af73e_auth', 'EDGE', 'EDGE_tenant123', 'public', `x${p.slice(1)}_auth`]) expect(testPrefixOf(other), other).toBeUndefined();
    // a look-alike whose time is not plausible is no test prefix either
    expect(testPrefixTime('tzzzzzzz000000', at)).toBeUndefined();
  });
});

describe('stale streams', () => {
  const now = Date.UTC(2026, 10, 25, 12);
  const info = (name: string, created: number, last = 0) => ({
    config: { name }, created: new Date(created).toISOString(), state: { last_ts: last ? new Date(last).toISOString() : '0001-01-01T00:00:00Z' },
  });

  it('are those of test prefixes made longer ago than the limit, without recent messages', () => {
    const old = testPrefix(now - 4 * HOUR);
    expect(isStaleTestStream(info(`EDGE_${old}`, now - 4 * HOUR), now, STALE_AFTER_MS)).toBe(true);
    expect(isStaleTestStream(info(`EDGE_${old}`, now - 4 * HOUR, now - 60_000), now, STALE_AFTER_MS)).toBe(false);
    expect(isStaleTestStream(info(`EDGE_${testPrefix(now - HOUR)}`, now - HOUR), now, STALE_AFTER_MS)).toBe(false);
  });

  it('judge the undated prefixes of older tests by when the stream was created', () => {
    expect(isStaleTestStream(info('EDGE_t0tv1jlel', now - 5 * HOUR), now, STALE_AFTER_MS)).toBe(true);
    expect(isStaleTestStream(info('EDGE_tb25af73e', now - HOUR), now, STALE_AFTER_MS)).toBe(false);
  });

  it('never include streams of other names', () => {
    for (const name of ['EDGE', 'EDGE_prod', 'EDGE_tenant12_x', 'ORDERS']) expect(isStaleTestStream(info(name, now - 100 * HOUR), now, STALE_AFTER_MS), name).toBe(false);
  });
});

describe('sweeping leftovers', () => {
  it('drops the schemas, streams and directories of prefixes hours old and keeps younger ones', async () => {
    const crashed = testPrefix(Date.now() - 4 * HOUR);
    const running = testPrefix(Date.now() - 10 * 60_000);
    await occupy(crashed);
    await occupy(running);
    const tmp = mkdtempSync(join(tmpdir(), 'sweep-'));
    const oldDir = join(tmp, `${TEST_DIR_PREFIX}${crashed}-a`);
    const newDir = join(tmp, `${TEST_DIR_PREFIX}${running}-b`);
    const otherDir = join(tmp, 'someone-else');
    for (const d of [oldDir, newDir, otherDir]) mkdirSync(d);
    const fourHoursAgo = new Date(Date.now() - 4 * HOUR);
    for (const d of [oldDir, otherDir]) utimesSync(d, fourHoursAgo, fourHoursAgo);
    try {
      const swept = await sweepStaleTestPrefixes({ ...infra, tmpDir: tmp });
      expect(swept.schemas).toEqual(expect.arrayContaining([`${crashed}_auth`, `${crashed}_kf_pki`]));
      expect(swept.streams).toContain(`EDGE_${crashed}`);
      expect(await remains(crashed)).toEqual({ schemas: [], stream: false, dirs: [] });
      expect(await remains(running)).toEqual({ schemas: [`${running}_auth`, `${running}_kf_pki`], stream: true, dirs: [] });
      expect(swept.dirs).toEqual([oldDir]);
      expect([existsSync(oldDir), existsSync(newDir), existsSync(otherDir)]).toEqual([false, true, true]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('drops one prefix entirely, and a prefix that made nothing is fine', async () => {
    const p = testPrefix();
    await occupy(p);
    await dropTestPrefix(infra, p);
    expect(await remains(p)).toEqual({ schemas: [], stream: false, dirs: [] });
    await expect(dropTestPrefix(infra, testPrefix())).resolves.toBeUndefined();
  });
});

describe('teardown', () => {
  it('undoes every step latest first, even past a step that fails, then reports the failure', async () => {
    const t = createTeardown();
    const done: string[] = [];
    t.add(() => done.push('first'));
    t.add(() => { throw new Error('second failed'); });
    t.add(async () => done.push('third'));
    await expect(t.run()).rejects.toThrow('second failed');
    expect(done).toEqual(['third', 'first']);
    await t.run();
    expect(done).toEqual(['third', 'first']);
  });

  it('undoes a set-up that fails half-way and passes its error on', async () => {
    const conn = await openConnection({ url: infra.databaseUrl, poolSize: 1 });
    const schema = `${testPrefix()}_half`;
    made.push(schema.split('_')[0]!);
    try {
      await expect(withTeardown(async (t) => {
        await executeSql(conn, `create schema "${schema}"`);
        t.add(() => dropSchema(conn, schema));
        throw new Error('the next step failed');
      })).rejects.toThrow('the next step failed');
      expect(await executeSql(conn, 'select 1 from pg_namespace where nspname = $1', [schema])).toEqual([]);
    } finally {
      await conn.close();
    }
  });
});
