/**
 * `POST /database/snapshot`: a snapshot of every service's schema that restores (with the
 * README's psql command) to identical data.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminApi, M } from '../support/admin-api.js';
import { useController, type TestController } from '../support/controller.js';
import { TEST_DATABASE_URL } from '../support/infra.js';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const { get, post, del } = adminApi(() => c, () => admin);

/** A digest of every table of this controller's schemas, except those written in the background. */
async function digest(): Promise<Record<string, string>> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    const tables = await db.query<{ s: string; t: string }>(
      `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
       WHERE table_schema LIKE $1 AND table_type = 'BASE TABLE' AND table_name NOT IN ('api_sessions', 'controllers') ORDER BY 1, 2`,
      [`${c.prefix}\\_%`],
    );
    const out: Record<string, string> = {};
    for (const { s, t } of tables.rows) {
      const r = await db.query<{ d: string }>(`SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS d FROM "${s}"."${t}" x`);
      out[`${s}.${t}`] = r.rows[0]!.d;
    }
    return out;
  } finally {
    await db.end();
  }
}

/**
 * The digest once the writes other services make from events have settled (the auth service's
 * read model applies the identity created a moment ago, and records the event in its inbox):
 * two digests a moment apart that agree.
 */
async function settledDigest(): Promise<Record<string, string>> {
  let last = await digest();
  for (let i = 0; i < 25; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const next = await digest();
    if (JSON.stringify(next) === JSON.stringify(last)) return next;
    last = next;
  }
  throw new Error('the schemas did not settle within 5 s');
}

describe('database snapshot', () => {
  it('writes a snapshot of every schema that restores to identical data', async () => {
    const keep = (await post('/identities', { name: 'snap-keep', type: 'User', isAdmin: false, roleAttributes: ['a'] })).body.data.id;
    await post('/services', { name: 'snap-svc', encryptionRequired: true });
    const before = await settledDigest();
    expect(Object.keys(before).some((k) => k.endsWith('_identity.identities'))).toBe(true);
    expect(Object.keys(before).some((k) => k.endsWith('_policy.services'))).toBe(true);

    await post('/database/snapshot', {}, 200);
    const files = readdirSync(join(c.dataDir, 'snapshots')).filter((f) => f.endsWith('.sql'));
    expect(files).toHaveLength(1);

    await post('/identities', { name: 'snap-later', type: 'User', isAdmin: false });
    await del(`/identities/${keep}`);
    expect(await digest()).not.toEqual(before);

    execFileSync('psql', ['--dbname', TEST_DATABASE_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', join(c.dataDir, 'snapshots', files[0]!)], { stdio: 'pipe' });
    expect(await digest()).toEqual(before);
    const names = (await get('/identities?limit=500')).body.data.map((i: { name: string }) => i.name);
    expect(names).toContain('snap-keep');
    expect(names).not.toContain('snap-later');
  });

  /** POST /database/snapshot with PATH holding only `dir`: what the session service (in this process) can spawn. */
  async function snapshotWithPath(dir: string) {
    const path = process.env.PATH;
    process.env.PATH = dir;
    try {
      // The spec documents only 200, 401 and 429 for this operation; a deployment without usable
      // client tools is none of them, so the catalog's UNAVAILABLE (503) envelope says why.
      return await c.http.post(`${M}/database/snapshot`, { body: {}, session: admin, skipValidation: true });
    } finally {
      process.env.PATH = path;
    }
  }

  it('answers 503 UNAVAILABLE, not a 500, when pg_dump is not installed or older than the server, and leaves no file', async () => {
    const snapshots = () => (existsSync(join(c.dataDir, 'snapshots')) ? readdirSync(join(c.dataDir, 'snapshots')) : []);
    const before = snapshots();
    const dir = mkdtempSync(join(tmpdir(), 'edge-no-pg-dump-'));
    try {
      const missing = await snapshotWithPath(dir);
      expect(missing.status).toBe(503);
      expect(missing.body.error).toMatchObject({ code: 'UNAVAILABLE' });
      expect(missing.body.error.causeMessage).toMatch(/snapshots are not available: pg_dump .* is not installed/);

      // What pg_dump 15 prints against a 17 server (it refuses to dump newer servers).
      writeFileSync(join(dir, 'pg_dump'), '#!/bin/sh\necho "pg_dump: error: aborting because of server version mismatch" >&2\necho "pg_dump: detail: server version: 17.2; pg_dump version: 15.20" >&2\nexit 1\n', { mode: 0o755 });
      const old = await snapshotWithPath(dir);
      expect(old.status).toBe(503);
      expect(old.body.error.causeMessage).toBe('snapshots are not available: pg_dump is older than the database server (server version: 17.2; pg_dump version: 15.20)');
      for (const r of [missing, old]) expect(r.text).not.toContain(TEST_DATABASE_URL);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(snapshots()).toEqual(before);
    await post('/database/snapshot', {}, 200);
  });
});
