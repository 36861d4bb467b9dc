/**
 * The bulk import path (`main.js import`): rows land in each owning service's schema, validated
 * as the API validates them, and are served by a running controller like any other entity.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, openConnection } from '@edge/db';
import { loadConfig } from '@edge/config';
import { silentLogger } from '@edge/logging';
import { importDataset, rowCount, type Dataset } from '@edge/launcher';
import { useController, type ControllerFixture } from './support/controller.js';
import { TEST_DATABASE_URL } from './support/infra.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
let f: ControllerFixture;
useController((fx) => { f = fx; });

const importInto = (data: Dataset) => importDataset(
  loadConfig({ EDGE_DATABASE_URL: TEST_DATABASE_URL, EDGE_DATABASE_SCHEMA_PREFIX: `${f.c.prefix}_`, EDGE_DATA_DIR: f.c.dataDir }), data, silentLogger(),
);
/** The pages of an imported table and how many of them are marked all visible, as Postgres counts them. */
async function visibility(service: string, table: string): Promise<{ pages: number; allVisible: number }> {
  const conn = await openConnection({ url: TEST_DATABASE_URL, poolSize: 1 });
  try {
    const { rows } = await sql<{ pages: number; allVisible: number }>`select relpages as "pages", relallvisible as "allVisible" from pg_class c
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${`${f.c.prefix}_${service}`} and c.relname = ${table}`.execute(createDb(conn, 'public'));
    return rows[0]!;
  } finally {
    await conn.close();
  }
}
const count = async (path: string, filter: string) =>
  (await f.c.http.get(`${M}/${path}?filter=${encodeURIComponent(filter)}`, { session: f.admin, expectStatus: 200 })).body.meta.pagination.totalCount as number;

describe('bulk import', () => {
  it('imports identities with passwords, routers, services and policies that the APIs then serve', async () => {
    const ids = await importInto({
      identities: [{ name: 'imp-alice', roleAttributes: ['imp-team'], password: 'imp-alice-pw', tags: { tier: 1, vip: true } }, { name: 'imp-bob', roleAttributes: ['imp-other'] }],
      edgeRouters: [{ name: 'imp-er', roleAttributes: ['imp-er'], cost: 7 }],
      services: [{ name: 'imp-web', roleAttributes: ['imp-web'] }, { name: 'imp-db', roleAttributes: ['imp-db'] }],
      servicePolicies: [{ name: 'imp-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#imp-team'], serviceRoles: ['#imp-web'] }],
      edgeRouterPolicies: [{ name: 'imp-erp', semantic: 'AnyOf', identityRoles: ['#imp-team'], edgeRouterRoles: ['#imp-er'] }],
      serviceEdgeRouterPolicies: [{ name: 'imp-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#imp-er'] }],
    });
    expect(ids.identities).toHaveLength(2);
    expect(ids.passwords).toHaveLength(1);
    // Vacuumed, not only analyzed: every page of the imported tables is marked all visible.
    expect(await visibility('policy', 'services')).toEqual({ pages: 1, allVisible: 1 });
    expect(await visibility('policy', 'service_policies')).toEqual({ pages: 1, allVisible: 1 });
    const alice = (await f.c.http.get(`${M}/identities/${ids.identities[0]}`, { session: f.admin, expectStatus: 200 })).body.data;
    expect(alice).toMatchObject({ name: 'imp-alice', roleAttributes: ['imp-team'], type: { name: 'Default' }, isAdmin: false, tags: { tier: 1, vip: true } });
    expect(await count('identities', 'tags.tier = 1 and tags.vip = true')).toBe(1);
    const er = (await f.c.http.get(`${M}/edge-routers/${ids.edgeRouters[0]}`, { session: f.admin, expectStatus: 200 })).body.data;
    expect(er).toMatchObject({ name: 'imp-er', cost: 7, isVerified: false });

    const login = await f.c.http.post(`${C}/authenticate?method=password`, { body: { username: 'imp-alice', password: 'imp-alice-pw' }, expectStatus: 200 });
    const token = login.body.data.token as string;
    const services = (await f.c.http.get(`${C}/services`, { session: token, expectStatus: 200 })).body.data as Array<{ name: string }>;
    expect(services.map((s) => s.name)).toEqual(['imp-web']);
    // Imported routers reach the policy service's read model by their created events, relayed
    // from the identity service's outbox within its poll interval.
    const dial = () => f.c.http.post(`${C}/sessions`, { body: { serviceId: ids.services[0], type: 'Dial' }, session: token });
    await expect.poll(async () => (await dial()).status, { timeout: 10_000, interval: 250 }).toBe(201);
    const session = await f.c.http.post(`${C}/sessions`, { body: { serviceId: ids.services[0], type: 'Dial' }, session: token, expectStatus: 201 });
    expect(session.body.data.edgeRouters.map((e: { name: string }) => e.name)).toEqual(['imp-er']);
    // No password was given to bob.
    await f.c.http.post(`${C}/authenticate?method=password`, { body: { username: 'imp-bob', password: 'imp-alice-pw' }, expectStatus: 401 });
  });

  it('refuses a bad row naming it, before writing anything', async () => {
    const before = await count('identities', 'name contains "imp-bad"');
    const bad = importInto({
      identities: [{ name: 'imp-bad-1' }],
      services: [{ name: 'imp-bad-svc' }],
      servicePolicies: [{ name: 'imp-bad-dial', type: 'Dial', identityRoles: ['#all', '#imp-x'], serviceRoles: ['#all'] }],
    });
    await expect(bad).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'servicePolicies[0].identityRoles' } });
    await expect(importInto({ identities: [{ name: 'imp-bad-2', roleAttributes: ['#hash'] }] }))
      .rejects.toMatchObject({ fieldCause: { field: 'identities[0].roleAttributes' } });
    expect(await count('identities', 'name contains "imp-bad"')).toBe(before);
    expect(await count('services', 'name contains "imp-bad"')).toBe(0);
  });
});

describe('bulk import progress', () => {
  it('reports every row written, chunk by chunk, up to the total the progress line shows', async () => {
    const data: Dataset = {
      identities: Array.from({ length: 1_200 }, (_, i) => ({ name: `imp-prog-${i}`, ...(i < 3 ? { password: `imp-prog-pw-${i}` } : {}) })),
      services: Array.from({ length: 700 }, (_, i) => ({ name: `imp-prog-svc-${i}` })),
    };
    const reports: number[] = [];
    await importDataset(
      loadConfig({ EDGE_DATABASE_URL: TEST_DATABASE_URL, EDGE_DATABASE_SCHEMA_PREFIX: `${f.c.prefix}_`, EDGE_DATA_DIR: f.c.dataDir }), data, silentLogger(),
      { onRows: (n) => reports.push(n) },
    );
    // identities in chunks of 500, then the passwords, then the services
    expect(reports).toEqual([500, 500, 200, 3, 500, 200]);
    expect(reports.reduce((a, b) => a + b, 0)).toBe(rowCount(data));
  });
});
