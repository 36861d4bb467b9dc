import { describe, expect, it } from 'vitest';
import { ADMIN, useController, type TestController } from '../support/controller.js';

const M = '/edge/management/v1';
let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

async function create(body: Record<string, unknown>): Promise<string> {
  const r = await c.http.post(`${M}/identities`, { body, session: admin, expectStatus: 201 });
  expect(r.body.data._links.self.href).toBe(`./identities/${r.body.data.id}`);
  return r.body.data.id;
}

const full = {
  name: 'full-identity',
  type: 'Device',
  isAdmin: false,
  roleAttributes: ['eu', 'web'],
  tags: { env: 'dev', critical: true, owner: null },
  appData: { team: 'net' },
  defaultHostingCost: 42,
  defaultHostingPrecedence: 'required',
  serviceHostingCosts: { svc1: 7 },
  serviceHostingPrecedences: { svc1: 'failed' },
  externalId: 'ext-1',
  authPolicyId: 'default',
};

describe('management identities', () => {
  it('creates an identity with every writable field and reads them back', async () => {
    const id = await create(full);
    const r = await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 });
    const d = r.body.data;
    expect(d).toMatchObject({
      id, name: 'full-identity', typeId: 'Default', isAdmin: false, isDefaultAdmin: false,
      roleAttributes: ['eu', 'web'], tags: full.tags, appData: full.appData, defaultHostingCost: 42,
      defaultHostingPrecedence: 'required', serviceHostingCosts: { svc1: 7 }, serviceHostingPrecedences: { svc1: 'failed' },
      externalId: 'ext-1', authPolicyId: 'default', disabled: false, hasApiSession: false,
    });
    expect(d.type).toMatchObject({ id: 'Default', name: 'Default' });
    expect(d.authPolicy).toMatchObject({ id: 'default' });
    expect(Date.parse(d.createdAt)).not.toBeNaN();
  });

  // As tests/identity_test.go (appData {one: 1, two: 2}): tags and appData take any JSON value.
  it('keeps numbers, booleans and nested values in tags and appData, and filters on them', async () => {
    const tags = { n: 5, f: 1.5, b: true, s: 'x', none: null, nested: { list: [1, 'two', { three: 3 }] } };
    const appData = { one: 1, two: 2, deep: { on: false } };
    const id = await create({ name: 'any-json-tags', type: 'User', isAdmin: false, tags, appData });
    expect((await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data).toMatchObject({ tags, appData });
    await c.http.patch(`${M}/identities/${id}`, { body: { tags: { ...tags, n: 6 } }, session: admin, expectStatus: 200 });
    const ids = async (filter: string) => (await c.http.get(`${M}/identities?filter=${encodeURIComponent(filter)}`, { session: admin, expectStatus: 200 }))
      .body.data.map((i: { id: string }) => i.id);
    expect(await ids('tags.n = 6')).toEqual([id]);
    expect(await ids('tags.n > 5.5 and tags.f < 2')).toEqual([id]);
    expect(await ids('tags.b = true')).toEqual([id]);
    expect(await ids('tags.s = "x" and tags.n = 6')).toEqual([id]);
    expect(await ids('tags.n = 5')).toEqual([]);
    for (const path of ['/services', '/edge-routers', '/service-policies', '/posture-checks']) {
      const body = {
        '/services': { name: 'any-json-svc', encryptionRequired: true, tags },
        '/edge-routers': { name: 'any-json-er', tags, appData },
        '/service-policies': { name: 'any-json-sp', type: 'Dial', semantic: 'AnyOf', tags },
        '/posture-checks': { name: 'any-json-pc', typeId: 'DOMAIN', domains: ['a.example'], tags },
      }[path];
      const made = (await c.http.post(`${M}${path}`, { body, session: admin, expectStatus: 201 })).body.data.id as string;
      const read = (await c.http.get(`${M}${path}/${made}`, { session: admin, expectStatus: 200 })).body.data;
      expect(read.tags).toEqual(tags);
      if (path === '/edge-routers') expect(read.appData).toEqual(appData);
    }
  });

  it('lists with pagination meta and clamps limit to 500', async () => {
    for (let i = 0; i < 3; i++) await create({ name: `page-${i}`, type: 'User', isAdmin: false });
    const all = await c.http.get(`${M}/identities?limit=1000`, { session: admin, expectStatus: 200 });
    expect(all.body.meta.pagination.limit).toBe(500);
    const total = all.body.meta.pagination.totalCount;
    expect(total).toBe(all.body.data.length);
    expect(all.body.data.some((i: { isDefaultAdmin: boolean }) => i.isDefaultAdmin)).toBe(true);
    const page = await c.http.get(`${M}/identities?limit=2&offset=1`, { session: admin, expectStatus: 200 });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.meta.pagination).toEqual({ limit: 2, offset: 1, totalCount: total });
    expect(page.body.data[0].id).toBe(all.body.data[1].id);
    const bad = await c.http.get(`${M}/identities?limit=abc`, { session: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_PAGINATION');
  });

  it('patches only the fields present and replaces every field on PUT', async () => {
    const id = await create({ name: 'patch-me', type: 'User', isAdmin: false, roleAttributes: ['a'], tags: { k: 'v' }, externalId: 'p-1' });
    await c.http.patch(`${M}/identities/${id}`, { body: { roleAttributes: ['b', 'c'] }, session: admin, expectStatus: 200 });
    let d = (await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(d.roleAttributes).toEqual(['b', 'c']);
    expect(d.tags).toEqual({ k: 'v' });
    expect(d.externalId).toBe('p-1');
    expect(d.name).toBe('patch-me');

    await c.http.put(`${M}/identities/${id}`, { body: { name: 'replaced', type: 'Router', isAdmin: false }, session: admin, expectStatus: 200 });
    d = (await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(d).toMatchObject({ name: 'replaced', typeId: 'Router', roleAttributes: [], tags: {}, externalId: null, authPolicyId: 'default' });
  });

  it('answers bad input with 400 naming the field, and changes nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'User', isAdmin: false }, 'name'],
      [{ name: 'x', type: 'Robot', isAdmin: false }, 'type'],
      [{ name: 'x', type: 'User' }, 'isAdmin'],
      [{ name: 'x', type: 'User', isAdmin: 'yes' }, 'isAdmin'],
      [{ name: 'x', type: 'User', isAdmin: false, defaultHostingCost: 70000 }, 'defaultHostingCost'],
      [{ name: 'x', type: 'User', isAdmin: false, roleAttributes: ['#bad'] }, 'roleAttributes'],
      [{ name: 'x', type: 'User', isAdmin: false, tags: ['n'] }, 'tags'],
    ];
    const before = (await c.http.get(`${M}/identities`, { session: admin, expectStatus: 200 })).body.meta.pagination.totalCount;
    for (const [body, field] of cases) {
      const r = await c.http.post(`${M}/identities`, { body, session: admin });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('COULD_NOT_VALIDATE');
      expect(r.body.error.cause.field).toBe(field);
    }
    const notJson = await c.http.post(`${M}/identities`, { rawBody: '{"name": ', session: admin });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('COULD_NOT_PARSE_BODY');
    const after = (await c.http.get(`${M}/identities`, { session: admin, expectStatus: 200 })).body.meta.pagination.totalCount;
    expect(after).toBe(before);
  });

  it('rejects a duplicate name with the field at fault', async () => {
    await create({ name: 'dupe', type: 'User', isAdmin: false });
    const r = await c.http.post(`${M}/identities`, { body: { name: 'dupe', type: 'User', isAdmin: false }, session: admin });
    expect(r.status).toBe(400);
    expect(r.body.error.cause).toMatchObject({ field: 'name', value: 'dupe' });
  });

  it('answers unknown ids with 404 on every verb', async () => {
    const url = `${M}/identities/doesnotexist`;
    for (const [method, body] of [['GET'], ['DELETE'], ['PATCH', { name: 'x' }], ['PUT', { name: 'x', type: 'User', isAdmin: false }]] as const) {
      const r = await c.http.request(method, url, { body, session: admin });
      expect(r.status, method).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('never deletes or demotes the default admin', async () => {
    const list = await c.http.get(`${M}/identities?limit=500`, { session: admin, expectStatus: 200 });
    const def = list.body.data.find((i: { isDefaultAdmin: boolean }) => i.isDefaultAdmin);
    expect(def.isAdmin).toBe(true);
    expect(def.authenticators.updb.username).toBe(ADMIN.username);
    const del = await c.http.delete(`${M}/identities/${def.id}`, { session: admin });
    expect(del.status).toBe(400);
    expect(del.body.error.code).toBe('ENTITY_CAN_NOT_BE_DELETED');
    const demote = await c.http.patch(`${M}/identities/${def.id}`, { body: { isAdmin: false }, session: admin });
    expect(demote.status).toBe(400);
    expect(demote.body.error.cause.field).toBe('isAdmin');
    const still = await c.http.get(`${M}/identities/${def.id}`, { session: admin, expectStatus: 200 });
    expect(still.body.data.isAdmin).toBe(true);
  });

  it('deletes an identity', async () => {
    const id = await create({ name: 'short-lived', type: 'User', isAdmin: false });
    await c.http.delete(`${M}/identities/${id}`, { session: admin, expectStatus: 200 });
    expect((await c.http.get(`${M}/identities/${id}`, { session: admin })).status).toBe(404);
  });

  it('requires an admin session: none, a bad one and a non-admin all get 401', async () => {
    expect((await c.http.get(`${M}/identities`)).status).toBe(401);
    const bad = await c.http.get(`${M}/identities`, { session: 'not-a-token' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('UNAUTHORIZED');
    expect(bad.headers['www-authenticate']).toContain('invalid');
  });

  it('switches tracing of an identity on for a duration and off again', async () => {
    const id = await create({ name: 'traced', type: 'User', isAdmin: false });
    const before = Date.now();
    const on = await c.http.put(`${M}/identities/${id}/trace`, { body: { enabled: true, duration: '10m', channels: ['edge'] }, session: admin, expectStatus: 200 });
    expect(on.body.data.enabled).toBe(true);
    expect(on.body.data.traceId).toMatch(/\S+/);
    const until = Date.parse(on.body.data.until);
    expect(until).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
    const named = await c.http.put(`${M}/identities/${id}/trace`, { body: { enabled: true, duration: '1h', traceId: 'my-trace' }, session: admin, expectStatus: 200 });
    expect(named.body.data.traceId).toBe('my-trace');
    const off = await c.http.put(`${M}/identities/${id}/trace`, { body: { enabled: false }, session: admin, expectStatus: 200 });
    expect(off.body.data).toMatchObject({ enabled: false });
    const bad = await c.http.put(`${M}/identities/${id}/trace`, { body: { enabled: true, duration: 'soon' }, session: admin, expectStatus: 400 });
    expect(bad.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'duration' } });
    await c.http.put(`${M}/identities/nope/trace`, { body: { enabled: true, duration: '1m' }, session: admin, expectStatus: 404 });
  });
});

