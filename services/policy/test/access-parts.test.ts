/**
 * Accesses made of kept parts (src/access-reader.ts) answer what the one-statement read
 * (store/access.ts) answers: over a random network of services, posture checks, edge routers and
 * policies of every kind (`#all`, `@id`, `@name`, AllOf and AnyOf), for every pair asked; and a
 * change made behind the service's back, by any statement, is seen by the next read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAccessReader } from '../src/access-reader.js';
import { createPolicyStores } from '../src/store/index.js';
import { splitRoles } from '../src/domain/roles.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
let stores: ReturnType<typeof createPolicyStores>;

/** A small deterministic generator, so a failure can be run again. */
function random(seed: number) {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return {
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    some: <T>(xs: readonly T[], most: number): T[] => [...new Set(Array.from({ length: Math.floor(next() * (most + 1)) }, () => xs[Math.floor(next() * xs.length)]!))],
  };
}

const ATTRS = ['a', 'b', 'c', 'd'];
const IDENTITIES = [
  { identityId: 'i1', roleAttributes: ['a'] }, { identityId: 'i2', roleAttributes: ['a', 'b'] }, { identityId: 'i3', roleAttributes: [] },
  { identityId: 'i4', roleAttributes: ['c', 'd'] }, { identityId: 'i5', roleAttributes: ['b', 'c', 'd'] },
];
const SERVICES = Array.from({ length: 24 }, (_, i) => `s${i}`);
const ROUTERS = Array.from({ length: 12 }, (_, i) => `r${i}`);

/** Role columns of `prefix` for a role list. */
function roleColumns(prefix: string, roles: string[]) {
  const split = splitRoles(roles);
  return { [`${prefix}_roles`]: roles, [`${prefix}_all`]: split.all, [`${prefix}_attrs`]: split.attrs, [`${prefix}_ids`]: split.ids };
}

beforeAll(async () => {
  h = await createHarness();
  stores = createPolicyStores(h.db);
  const r = random(7);
  const db = h.db;
  // `#all` on one side of a few policies only, or everything would be granted.
  const roles = (ids: readonly string[], all = false) => (all ? ['#all'] : [...r.some(ATTRS.map((a) => `#${a}`), 2), ...r.some(ids.map((id) => `@${id}`), 1)]);
  await db.insertInto('services').values(SERVICES.map((id) => ({ id, name: `svc-${id}`, role_attributes: r.some(ATTRS, 3) }))).execute();
  await db.insertInto('posture_checks').values(Array.from({ length: 6 }, (_, i) => ({
    id: `pc${i}`, name: `pc-${i}`, type_id: 'DOMAIN', role_attributes: r.some(ATTRS, 2), data: JSON.stringify({ domains: [`d${i}.example`] }),
  }))).execute();
  await db.insertInto('edge_routers').values(ROUTERS.map((id, i) => ({
    id, name: `router-${id}`, role_attributes: r.some(ATTRS, 2), hostname: `${id}.example`, deleted: i === 11,
    created_at: new Date(Date.UTC(2026, 0, 1) + (i % 4) * 1000), updated_at: new Date(),
  }))).execute();
  const semantic = () => r.pick(['AllOf', 'AnyOf']);
  await db.insertInto('service_policies').values(Array.from({ length: 16 }, (_, i) => ({
    id: `sp${i}`, name: `sp-${i}`, type: r.pick(['Dial', 'Bind']), semantic: semantic(),
    ...roleColumns('identity', roles(IDENTITIES.map((x) => x.identityId), i === 3)), ...roleColumns('service', roles(SERVICES, i === 9)),
    ...roleColumns('posture_check', r.pick([[], [], ['#a'], ['@pc1'], ['#b', '#c']])),
  }))).execute();
  await db.insertInto('edge_router_policies').values(Array.from({ length: 8 }, (_, i) => ({
    id: `erp${i}`, name: `erp-${i}`, semantic: semantic(),
    ...roleColumns('identity', roles(IDENTITIES.map((x) => x.identityId), i === 2)),
    // An `@` role may name a router by id or by name.
    ...roleColumns('edge_router', i % 3 === 0 ? [`@router-r${i}`, '#a'] : roles(ROUTERS, i === 4)),
  }))).execute();
  await db.insertInto('service_edge_router_policies').values(Array.from({ length: 8 }, (_, i) => ({
    id: `serp${i}`, name: `serp-${i}`, semantic: semantic(), ...roleColumns('service', roles(SERVICES, i === 1)), ...roleColumns('edge_router', roles(ROUTERS)),
  }))).execute();
}, 60_000);
afterAll(() => h?.close());

const wanted = { from: 'model' as const, routers: true, counts: true };

/** Every pair's access both ways, one pair at a time. */
async function bothWays(reader = createAccessReader(stores.accessParts)) {
  const out = [];
  for (const who of IDENTITIES) {
    for (const serviceId of [...SERVICES, 'no-such-service']) {
      out.push({
        pair: `${who.identityId} ${serviceId}`,
        parts: await reader.read(who, serviceId, wanted),
        one: await stores.access.read(who, serviceId, wanted),
      });
    }
  }
  return out;
}

describe('accesses made of kept parts', () => {
  it('answer every pair as the one-statement read does', async () => {
    const answers = await bothWays();
    for (const a of answers) expect(a.parts, a.pair).toEqual(a.one);
    // The network grants something and refuses something, routers included.
    expect(answers.filter((a) => a.one?.grant.permissions.length).length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.one && a.one.grant.permissions.length === 0).length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.one?.routers?.edgeRouters.length).length).toBeGreaterThan(5);
    expect(answers.filter((a) => a.one?.grant.policies.some((p) => p.checks.length > 0)).length).toBeGreaterThan(0);
  });

  it('answer many pairs asked at once (their service parts read together) as the one-statement read does', async () => {
    const statements: string[] = [];
    const counting = { ...stores.accessParts, services: (ids: readonly string[]) => (statements.push(ids.join(' ')), stores.accessParts.services(ids)) };
    const reader = createAccessReader(counting);
    for (const who of IDENTITIES) {
      // Every service, one twice, and one that is none, in one turn.
      const asked = [...SERVICES, SERVICES[0]!, 'no-such-service'];
      const parts = await Promise.all(asked.map((serviceId) => reader.read(who, serviceId, wanted)));
      for (const [i, serviceId] of asked.entries()) expect(parts[i], `${who.identityId} ${serviceId}`).toEqual(await stores.access.read(who, serviceId, wanted));
    }
    // The first identity's accesses read every service part in one statement; the others used them.
    expect(statements).toEqual([[...SERVICES, 'no-such-service'].join(' ')]);
  });

  it('see every change made behind their back at the next read', async () => {
    const reader = createAccessReader(stores.accessParts);
    await bothWays(reader);
    const t = (name: string) => sql.id(h.schema, name);
    const changes = [
      sql`update ${t('service_policies')} set identity_all = true, identity_roles = array['#all'] where id = 'sp3'`,
      sql`update ${t('services')} set role_attributes = array['a', 'b', 'c', 'd'] where id = 's5'`,
      sql`delete from ${t('service_policies')} where id = 'sp0'`,
      sql`update ${t('edge_routers')} set role_attributes = array['a', 'b'] where id = 'r2'`,
      sql`update ${t('edge_routers')} set deleted = true where id = 'r4'`,
      sql`update ${t('posture_checks')} set role_attributes = array['a', 'b', 'c'] where id = 'pc2'`,
      sql`update ${t('edge_router_policies')} set edge_router_all = true where id = 'erp1'`,
      sql`update ${t('service_edge_router_policies')} set service_all = true where id = 'serp2'`,
      sql`insert into ${t('services')} (id, name, role_attributes) values ('s99', 'svc-s99', array['a'])`,
    ];
    for (const change of changes) {
      await change.execute(h.db);
      for (const a of await bothWays(reader)) expect(a.parts, `${a.pair} after ${change.compile(h.db).sql}`).toEqual(a.one);
    }
  });

  it('leave the version alone for a statement that changes no row', async () => {
    const before = await stores.accessParts.version();
    await sql`update ${sql.id(h.schema, 'edge_routers')} set hostname = 'x' where id = 'no-such-router'`.execute(h.db);
    expect(await stores.accessParts.version()).toBe(before);
    await sql`update ${sql.id(h.schema, 'edge_routers')} set hostname = 'x' where id = 'r1'`.execute(h.db);
    expect(await stores.accessParts.version()).toBe(before + 1);
  });
});
