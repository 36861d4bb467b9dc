/**
 * Management services end to end: every field, encryptionRequired read-only after create, one
 * config per config type, role attribute rules, filters, role filters, sub-lists and the
 * distinct role attributes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';

let c: TestController;
let admin: string;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

const { get, post, put, patch, del } = adminApi(() => c, () => admin);
const enc = encodeURIComponent;

describe('management services', () => {
  let cfgA: string;
  let cfgB: string;
  beforeAll(async () => {
    const type = (await post('/config-types', { name: 'svc-type', schema: { type: 'object' } })).body.data.id;
    cfgA = (await post('/configs', { name: 'svc-cfg-a', configTypeId: type, data: { a: 1 } })).body.data.id;
    cfgB = (await post('/configs', { name: 'svc-cfg-b', configTypeId: type, data: { b: 1 } })).body.data.id;
  });

  it('round-trips every field; encryptionRequired is kept after create', async () => {
    const body = { name: 'svc-full', encryptionRequired: false, maxIdleTimeMillis: 30000, terminatorStrategy: 'weighted', roleAttributes: ['web', 'eu'], configs: [cfgA], tags: { owner: 'net' } };
    const id = (await post('/services', body)).body.data.id;
    let d = (await get(`/services/${id}`)).body.data;
    expect(d).toMatchObject({ ...body, id, permissions: [], postureQueries: [], config: {} });
    expect(d._links.self.href).toBe(`./services/${id}`);
    await put(`/services/${id}`, { name: 'svc-full-2', encryptionRequired: true, roleAttributes: ['db'] });
    d = (await get(`/services/${id}`)).body.data;
    expect(d).toMatchObject({ name: 'svc-full-2', encryptionRequired: false, maxIdleTimeMillis: 0, terminatorStrategy: 'smartrouting', roleAttributes: ['db'], configs: [], tags: {} });
    await patch(`/services/${id}`, { maxIdleTimeMillis: 5, configs: [cfgB] });
    d = (await get(`/services/${id}?configTypes=svc-type`)).body.data;
    expect(d).toMatchObject({ name: 'svc-full-2', maxIdleTimeMillis: 5, roleAttributes: ['db'], configs: [cfgB], config: { 'svc-type': { b: 1 } } });
    await del(`/services/${id}`);
    await get(`/services/${id}`, 404);
  });

  it('refuses two configs of one type, unknown configs, bad role attributes and a missing encryptionRequired', async () => {
    const two = await post('/services', { name: 'svc-two', encryptionRequired: true, configs: [cfgA, cfgB] }, 400);
    expect(two.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'configs' } });
    const unknown = await post('/services', { name: 'svc-two', encryptionRequired: true, configs: ['nope'] }, 400);
    expect(unknown.body.error.cause.field).toBe('configs');
    const hash = await post('/services', { name: 'svc-two', encryptionRequired: true, roleAttributes: ['#web'] }, 400);
    expect(hash.body.error.cause.field).toBe('roleAttributes[0]');
    const missing = await post('/services', { name: 'svc-two' }, 400);
    expect(missing.body.error.cause.field).toBe('encryptionRequired');
    expect((await get(`/services?filter=${enc('name = "svc-two"')}`)).body.data).toHaveLength(0);
    const dup = await post('/services', { name: 'svc-dup', encryptionRequired: true });
    expect(dup.status).toBe(201);
    expect((await post('/services', { name: 'svc-dup', encryptionRequired: true }, 400)).body.error.cause.field).toBe('name');
  });

  // As EdgeService.validateConfigs (controller/model/edge_service_model.go).
  it('refuses one config twice and a config whose type targets routers, on configs, also on update', async () => {
    const routerType = (await post('/config-types', { name: 'svc-router-type', schema: { type: 'object' }, target: 'router' })).body.data.id;
    const forRouters = (await post('/configs', { name: 'svc-router-cfg', configTypeId: routerType, data: {} })).body.data.id;
    for (const configs of [[cfgA, cfgA], [forRouters], [cfgA, forRouters]]) {
      const r = await post('/services', { name: 'svc-target', encryptionRequired: true, configs }, 400);
      expect(r.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'configs' } });
    }
    expect((await get(`/services?filter=${enc('name = "svc-target"')}`)).body.data).toHaveLength(0);
    const id = (await post('/services', { name: 'svc-target', encryptionRequired: true, configs: [cfgA] })).body.data.id;
    expect((await patch(`/services/${id}`, { configs: [forRouters] }, 400)).body.error.cause.field).toBe('configs');
    expect((await put(`/services/${id}`, { name: 'svc-target', configs: [cfgB, cfgB] }, 400)).body.error.cause.field).toBe('configs');
    expect((await get(`/services/${id}`)).body.data.configs).toEqual([cfgA]);
  });

  it('filters with ZitiQL and role filters, and lists the distinct role attributes', async () => {
    await post('/services', { name: 'rf-web', encryptionRequired: true, roleAttributes: ['rf-web'] });
    const webDb = (await post('/services', { name: 'rf-web-db', encryptionRequired: true, roleAttributes: ['rf-web', 'rf-db'] })).body.data.id;
    await post('/services', { name: 'rf-db', encryptionRequired: true, roleAttributes: ['rf-db'] });
    const names = async (q: string) => ((await get(`/services?limit=100&${q}`)).body.data as Array<{ name: string }>).map((s) => s.name).sort();
    expect(await names(`filter=${enc('name contains "rf-" and anyOf(roleAttributes) = "rf-db"')}`)).toEqual(['rf-db', 'rf-web-db']);
    expect(await names('roleFilter=%23rf-web&roleFilter=%23rf-db')).toEqual(['rf-web-db']);
    expect(await names('roleFilter=%23rf-web&roleFilter=%23rf-db&roleSemantic=AnyOf')).toEqual(['rf-db', 'rf-web', 'rf-web-db']);
    expect(await names(`roleFilter=${enc('@' + webDb)}`)).toEqual(['rf-web-db']);
    expect((await get(`/services?roleFilter=rf-web`, 400)).body.error.cause.field).toBe('roleFilter[0]');
    // the admin console's `sort=name asc` is not read here, as OpenZiti reads none
    const attrs = await get(`/service-role-attributes?filter=${enc('id contains "rf-"')}&sort=${enc('name asc')}`);
    expect(attrs.body.data).toEqual(['rf-db', 'rf-web']);
    expect(attrs.body.meta.pagination.totalCount).toBe(2);
    // Asked with no parameter (as the admin console asks), every attribute in use: no page of ten.
    const many = Array.from({ length: 12 }, (_, i) => `rf-many-${String(i).padStart(2, '0')}`);
    await post('/services', { name: 'rf-many', encryptionRequired: true, roleAttributes: many });
    const all = (await get('/service-role-attributes')).body;
    expect(all.data).toEqual(expect.arrayContaining([...many, 'rf-db', 'rf-web']));
    expect(all.meta.pagination).toMatchObject({ limit: all.data.length, offset: 0, totalCount: all.data.length });
  });

  it('lists the configs and the policies of a service', async () => {
    const id = (await post('/services', { name: 'svc-subs', encryptionRequired: true, roleAttributes: ['subs'], configs: [cfgA] })).body.data.id;
    expect((await get(`/services/${id}/configs`)).body.data.map((x: { id: string }) => x.id)).toEqual([cfgA]);
    const sp = (await post('/service-policies', { name: 'subs-sp', type: 'Bind', semantic: 'AnyOf', serviceRoles: ['#subs', '#other'] })).body.data.id;
    await post('/service-policies', { name: 'subs-sp-other', type: 'Bind', semantic: 'AllOf', serviceRoles: ['#subs', '#other'] });
    const serp = (await post('/service-edge-router-policies', { name: 'subs-serp', semantic: 'AllOf', serviceRoles: [`@${id}`], edgeRouterRoles: ['#all'] })).body.data.id;
    expect((await get(`/services/${id}/service-policies`)).body.data.map((x: { id: string }) => x.id)).toEqual([sp]);
    expect((await get(`/services/${id}/service-edge-router-policies`)).body.data.map((x: { id: string }) => x.id)).toEqual([serp]);
    expect((await get(`/service-policies/${sp}/services`)).body.data.map((x: { id: string }) => x.id)).toContain(id);
    expect((await get(`/service-edge-router-policies/${serp}/services`)).body.data.map((x: { id: string }) => x.id)).toEqual([id]);
  });
});
