/**
 * `node services/<name>/dist/main.js migrate`: the migration step the Kubernetes deployment runs
 * before a service's replicas start. It must apply the schema, be repeatable, and exit.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@edge/config';
import { cleanupPrefix } from '../support/cleanup.js';
import { TEST_DATABASE_URL, uniquePrefix } from '../support/infra.js';

const prefix = uniquePrefix();
afterAll(() => cleanupPrefix(prefix));

function runMain(service: string, args: string[], env: Record<string, string> = {}) {
  const main = fileURLToPath(new URL(`../../services/${service}/dist/main.js`, import.meta.url));
  return spawnSync(process.execPath, [main, ...args], {
    env: { PATH: process.env.PATH, EDGE_DATABASE_URL: TEST_DATABASE_URL, EDGE_DATABASE_SCHEMA_PREFIX: `${prefix}_`, EDGE_LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

async function appliedMigrations(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const r = await client.query<{ name: string }>(`select name from "${schema}".migrations order by name`);
    return r.rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe('service main.js migrate', () => {
  it.each(SERVICE_NAMES)('%s: applies its migrations, exits 0, and is a no-op the second time', async (service) => {
    const first = runMain(service, ['migrate']);
    expect(first.status, first.stderr + first.stdout).toBe(0);
    const applied = await appliedMigrations(`${prefix}_${service}`);
    expect(applied.length).toBeGreaterThan(0);
    expect(applied[0]).toMatch(/^001_.*\.sql$/);

    const second = runMain(service, ['migrate']);
    expect(second.status, second.stderr + second.stdout).toBe(0);
    expect(await appliedMigrations(`${prefix}_${service}`)).toEqual(applied);
  });

  it('exits 1 when the database cannot be reached', () => {
    const r = runMain('policy', ['migrate'], { EDGE_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(r.status).toBe(1);
  });

  it('rejects an unknown command with exit code 2 and the usage', () => {
    const r = runMain('identity', ['migrat']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('serve|migrate');
  });
});
