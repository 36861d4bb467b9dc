/**
 * Management edge routers, transit routers and their role attributes, end to end; responses
 * are validated against the specs.
 */
import { describe, expect, it } from 'vitest';
import { peerClient } from '@edge/rpc';
import { useController, type TestController } from '../support/controller.js';
import { eventually } from '../support/eventually.js';

const M = '/edge/management/v1';
let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

async function create(collection: string, body: Record<string, unknown>): Promise<string> {
  const r = await c.http.post(`${M}/${collection}`, { body, session: admin, expectStatus: 201 });
  expect(r.body.data._links.self.href).toBe(`./${collection}/${r.body.data.id}`);
  return r.body.data.id;
}

const get = (path: string, expectStatus = 200) => c.http.get(`${M}/${path}`, { session: admin, expectStatus });
const enc = encodeURIComponent;

describe('edge routers', () => {
  it('creates an edge router with every writable field and reads them back', async () => {
    const body = {
      name: 'er-full', roleAttributes: ['eu', 'public'], tags: { env: 'prod' }, appData: { rack: '7' }, cost: 300,
      noTraversal: true, disabled: false, isTunnelerEnabled: false, ctrlChanListeners: { 'tls:er:6262': ['default'] },
    };
    const id = await create('edge-routers', body);
    const d = (await get(`edge-routers/${id}`)).body.data;
    expect(d).toMatchObject({
      id, name: 'er-full', roleAttributes: ['eu', 'public'], tags: { env: 'prod' }, appData: { rack: '7' }, cost: 300, noTraversal: true,
      disabled: false, isTunnelerEnabled: false, isVerified: false, isOnline: false, syncStatus: 'SYNC_UNKNOWN', fingerprint: '',
      ctrlChanListeners: { 'tls:er:6262': ['default'] }, hostname: '', supportedProtocols: {},
    });
    expect(d._links['edge-router-policies'].href).toBe(`./edge-routers/${id}/edge-router-policies`);
  });

  it('replaces with PUT and changes only the given fields with PATCH', async () => {
    const id = await create('edge-routers', { name: 'er-put', roleAttributes: ['a'], cost: 5 });
    await c.http.put(`${M}/edge-routers/${id}`, { body: { name: 'er-put-2', cost: 9 }, session: admin, expectStatus: 200 });
    expect((await get(`edge-routers/${id}`)).body.data).toMatchObject({ name: 'er-put-2', cost: 9, roleAttributes: [] });
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { roleAttributes: ['b'] }, session: admin, expectStatus: 200 });
    expect((await get(`edge-routers/${id}`)).body.data).toMatchObject({ name: 'er-put-2', cost: 9, roleAttributes: ['b'] });
    const listeners = { 'tls:er:6262': ['default', 'edge'], 'tls:er:6263': [] };
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { ctrlChanListeners: listeners }, session: admin, expectStatus: 200 });
    expect((await get(`edge-routers/${id}`)).body.data).toMatchObject({ name: 'er-put-2', roleAttributes: ['b'], ctrlChanListeners: listeners });
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { ctrlChanListeners: null }, session: admin, expectStatus: 200 });
    expect((await get(`edge-routers/${id}`)).body.data.ctrlChanListeners).toEqual({});
  });

  it('refuses bad input with the field at fault and duplicate names across router kinds', async () => {
    const bad = async (body: unknown, field: string) => {
      const r = await c.http.post(`${M}/edge-routers`, { body, session: admin, expectStatus: 400 });
      expect(r.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field } });
    };
    await bad({ cost: 1 }, 'name');
    await bad({ name: 'x', cost: 70000 }, 'cost');
    await bad({ name: 'x', roleAttributes: ['#no'] }, 'roleAttributes');
    await create('transit-routers', { name: 'shared-name' });
    await bad({ name: 'shared-name' }, 'name');
  });

  // As validateRouterConfigs (controller/model/router_model.go): configs of router-targeted types, one per type.
  it('stores the configs of edge and transit routers, refusing configs that do not target routers', async () => {
    const post = async (path: string, body: unknown) => (await c.http.post(`${M}/${path}`, { body, session: admin, expectStatus: 201 })).body.data.id as string;
    const routerType = await post('config-types', { name: 'er-cfg.v1', schema: { type: 'object' }, target: 'router' });
    const otherRouterType = await post('config-types', { name: 'er-cfg-other.v1', schema: { type: 'object' }, target: 'router' });
    const serviceType = await post('config-types', { name: 'er-svc-cfg.v1', schema: { type: 'object' } });
    const one = await post('configs', { name: 'er-cfg-1', configTypeId: routerType, data: { a: 1 } });
    const two = await post('configs', { name: 'er-cfg-2', configTypeId: routerType, data: { a: 2 } });
    const other = await post('configs', { name: 'er-cfg-3', configTypeId: otherRouterType, data: {} });
    const forServices = await post('configs', { name: 'er-svc-cfg', configTypeId: serviceType, data: {} });

    const id = await create('edge-routers', { name: 'er-configs', configs: [one, other] });
    expect((await get(`edge-routers/${id}`)).body.data.configs).toEqual([one, other]);
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { cost: 3 }, session: admin, expectStatus: 200 });
    expect((await get(`edge-routers/${id}`)).body.data).toMatchObject({ cost: 3, configs: [one, other] });
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { configs: [two] }, session: admin, expectStatus: 200 });
    expect((await get(`edge-routers/${id}`)).body.data.configs).toEqual([two]);

    for (const configs of [[forServices], [one, two], [one, one], ['no-such-config']]) {
      const r = await c.http.post(`${M}/edge-routers`, { body: { name: 'er-configs-bad', configs }, session: admin, expectStatus: 400 });
      expect(r.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'configs' } });
      const p = await c.http.patch(`${M}/edge-routers/${id}`, { body: { configs }, session: admin, expectStatus: 400 });
      expect(p.body.error.cause.field).toBe('configs');
    }
    expect((await get(`edge-routers?filter=${enc('name = "er-configs-bad"')}`)).body.data).toEqual([]);
    expect((await get(`edge-routers/${id}`)).body.data.configs).toEqual([two]);

    const transit = await create('transit-routers', { name: 'tr-configs', configs: [other] });
    expect((await get(`transit-routers/${transit}`)).body.data.configs).toEqual([other]);
    await c.http.put(`${M}/transit-routers/${transit}`, { body: { name: 'tr-configs', configs: [forServices] }, session: admin, expectStatus: 400 });

    // A deleted config leaves the routers that held it, as OpenZiti's foreign-key sets.
    await c.http.delete(`${M}/configs/${other}`, { session: admin, expectStatus: 200 });
    await eventually(async () => (await get(`transit-routers/${transit}`)).body.data.configs.length === 0);
  });

  it('gives a tunneler-enabled edge router an identity of type Router, kept in step', async () => {
    const id = await create('edge-routers', { name: 'er-tunneler', isTunnelerEnabled: true });
    const ident = (await get(`identities/${id}`)).body.data;
    expect(ident).toMatchObject({ id, name: 'er-tunneler', typeId: 'Router' });
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { name: 'er-tunneler-2' }, session: admin, expectStatus: 200 });
    expect((await get(`identities/${id}`)).body.data.name).toBe('er-tunneler-2');
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { isTunnelerEnabled: false }, session: admin, expectStatus: 200 });
    await get(`identities/${id}`, 404);
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { isTunnelerEnabled: true }, session: admin, expectStatus: 200 });
    await get(`identities/${id}`);
    await c.http.delete(`${M}/edge-routers/${id}`, { session: admin, expectStatus: 200 });
    await get(`identities/${id}`, 404);
    await get(`edge-routers/${id}`, 404);
  });

  it('keeps a system edge router policy for a tunneler-enabled router, which the API cannot change', async () => {
    const id = await create('edge-routers', { name: 'er-system', isTunnelerEnabled: true });
    const policy = async () => {
      const r = await get(`edge-router-policies?filter=${enc(`isSystem = true and name = "edge-router-${id}-system"`)}`);
      return r.body.data[0] as Record<string, unknown> | undefined;
    };
    const until = async (want: boolean) => {
      for (let i = 0; i < 100 && Boolean(await policy()) !== want; i++) await new Promise((r) => setTimeout(r, 100));
      return policy();
    };
    expect(await until(true)).toMatchObject({ id, isSystem: true, semantic: 'AnyOf', identityRoles: [`@${id}`], edgeRouterRoles: [`@${id}`] });
    const patch = await c.http.patch(`${M}/edge-router-policies/${id}`, { body: { name: 'mine-now' }, session: admin, expectStatus: 400 });
    expect(patch.body.error.code).toBe('ENTITY_CAN_NOT_BE_UPDATED');
    const del = await c.http.delete(`${M}/edge-router-policies/${id}`, { session: admin, expectStatus: 400 });
    expect(del.body.error.code).toBe('ENTITY_CAN_NOT_BE_DELETED');
    // The router's identity reaches the router through it.
    const routers = (await get(`identities/${id}/edge-routers`)).body.data.map((x: { id: string }) => x.id);
    expect(routers).toEqual([id]);
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { isTunnelerEnabled: false }, session: admin, expectStatus: 200 });
    expect(await until(false)).toBeUndefined();
    await c.http.patch(`${M}/edge-routers/${id}`, { body: { isTunnelerEnabled: true }, session: admin, expectStatus: 200 });
    expect(await until(true)).toBeDefined();
    await c.http.delete(`${M}/edge-routers/${id}`, { session: admin, expectStatus: 200 });
    expect(await until(false)).toBeUndefined();
  });

  it('lists with filters and role filters, and lists role attributes', async () => {
    await create('edge-routers', { name: 'er-eu-1', roleAttributes: ['zone-eu', 'edge'] });
    await create('edge-routers', { name: 'er-us-1', roleAttributes: ['zone-us', 'edge'] });
    const names = (r: { body: { data: Array<{ name: string }> } }) => r.body.data.map((x) => x.name).sort();
    expect(names(await get(`edge-routers?filter=${enc('anyOf(roleAttributes) = "zone-eu"')}`))).toEqual(['er-eu-1']);
    expect(names(await get('edge-routers?roleFilter=%23edge&roleFilter=%23zone-us'))).toEqual(['er-us-1']);
    expect(names(await get('edge-routers?roleFilter=%23zone-eu&roleFilter=%23zone-us&roleSemantic=AnyOf'))).toEqual(['er-eu-1', 'er-us-1']);
    const attrs = await get(`edge-router-role-attributes?filter=${enc('id contains "zone"')}&sort=${enc('name asc')}`);
    expect(attrs.body.data).toEqual(['zone-eu', 'zone-us']);
    expect((await get(`edge-routers?filter=${enc('nope = 1')}`, 400)).body.error.code).toBe('INVALID_FILTER');
  });
});

describe('transit routers', () => {
  it('serves CRUD under /transit-routers and /routers, separately from edge routers', async () => {
    const id = await create('transit-routers', { name: 'tr-1', cost: 12, noTraversal: true, tags: { a: 'b' } });
    expect((await get(`transit-routers/${id}`)).body.data).toMatchObject({ id, name: 'tr-1', cost: 12, noTraversal: true, disabled: false, tags: { a: 'b' }, isVerified: false });
    expect((await get(`routers/${id}`)).body.data.name).toBe('tr-1');
    await get(`edge-routers/${id}`, 404);
    await c.http.patch(`${M}/routers/${id}`, { body: { disabled: true }, session: admin, expectStatus: 200 });
    expect((await get(`transit-routers/${id}`)).body.data).toMatchObject({ disabled: true, cost: 12 });
    const list = await get(`transit-routers?filter=${enc('name = "tr-1"')}`);
    expect(list.body.meta.pagination.totalCount).toBe(1);
    expect((await get('edge-routers?limit=500')).body.data.some((r: { id: string }) => r.id === id)).toBe(false);
    await c.http.delete(`${M}/transit-routers/${id}`, { session: admin, expectStatus: 200 });
    await get(`routers/${id}`, 404);
  });
});

describe('role matching for other services', () => {
  it('answers which identities and edge routers a role list selects', async () => {
    const rpc = peerClient(c.running.config.grpc, 'identity', { deadlineMs: 5_000 });
    try {
      const r1 = await create('edge-routers', { name: 'm-er-1', roleAttributes: ['m-a', 'm-b'] });
      const r2 = await create('edge-routers', { name: 'm-er-2', roleAttributes: ['m-a'] });
      const i1 = await c.http.post(`${M}/identities`, { body: { name: 'm-id-1', type: 'User', isAdmin: false, roleAttributes: ['m-a'] }, session: admin, expectStatus: 201 });
      const sorted = (xs: string[]) => [...xs].sort();
      expect(sorted((await rpc.matchEdgeRouters({ roles: ['#m-a', '#m-b'], semantic: 'AllOf' })).ids)).toEqual([r1]);
      expect(sorted((await rpc.matchEdgeRouters({ roles: ['#m-b', '@m-er-2'], semantic: 'AnyOf' })).ids)).toEqual(sorted([r1, r2]));
      expect((await rpc.matchIdentities({ roles: ['#m-a'], semantic: '' })).ids).toEqual([i1.body.data.id]);
      expect((await rpc.matchIdentities({ roles: ['#all'], semantic: 'AllOf' })).ids.length).toBeGreaterThan(1);
      await expect(rpc.matchIdentities({ roles: ['m-a'], semantic: 'AllOf' })).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE' });
    } finally {
      rpc.close();
    }
  });
});
