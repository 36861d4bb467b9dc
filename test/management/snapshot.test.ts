/**
 * `POST /database/snapshot`: a snapshot of every service's schema that restores (with the
 * README's psql command) to identical data.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminApi } from '../support/admin-api.js';
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

describe('database snapshot', () => {
  it('writes a snapshot of every schema that restores to identical data', async () => {
    const keep = (await post('/identities', { name: 'snap-keep', type: 'User', isAdmin: false, roleAttributes: ['a'] })).body.data.id;
    await post('/services', { name: 'snap-svc', encryptionRequired: true });
    const before = await digest();
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
});
