/**
 * Sub-lists that cross owners through policies: an identity's policies, services and edge
 * routers; an edge router's policies and identities; a service's identities.
 */
import { describe, expect, it } from 'vitest';
import { adminApi } from '../support/admin-api.js';
import { useController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const C = '/edge/client/v1';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const { get, post } = adminApi(() => c, () => admin);

const ids = (r: { body: { data: Array<{ id: string }> } }) => r.body.data.map((x) => x.id).sort();
const sorted = (xs: string[]) => [...xs].sort();

describe('identity, edge router and service sub-lists', () => {
  it('lists what policies relate to an identity, an edge router and a service', async () => {
    const alice = (await post('/identities', { name: 'rel-alice', type: 'User', isAdmin: false, roleAttributes: ['rel-eu', 'rel-dev'] })).body.data.id;
    const bob = (await post('/identities', { name: 'rel-bob', type: 'User', isAdmin: false, roleAttributes: ['rel-us'] })).body.data.id;
    const erEu = (await post('/edge-routers', { name: 'rel-er-eu', roleAttributes: ['rel-er-eu'] })).body.data.id;
    const erUs = (await post('/edge-routers', { name: 'rel-er-us', roleAttributes: ['rel-er-us'] })).body.data.id;
    const web = (await post('/services', { name: 'rel-web', encryptionRequired: true, roleAttributes: ['rel-web'] })).body.data.id;
    const db = (await post('/services', { name: 'rel-db', encryptionRequired: true, roleAttributes: ['rel-db'] })).body.data.id;

    const dial = (await post('/service-policies', { name: 'rel-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#rel-eu'], serviceRoles: ['#rel-web'] })).body.data.id;
    const bind = (await post('/service-policies', { name: 'rel-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#rel-dev', `@${bob}`], serviceRoles: ['#rel-db'] })).body.data.id;
    const erpEu = (await post('/edge-router-policies', { name: 'rel-erp-eu', semantic: 'AllOf', identityRoles: ['#rel-eu'], edgeRouterRoles: ['#rel-er-eu'] })).body.data.id;
    const erpAll = (await post('/edge-router-policies', { name: 'rel-erp-us', semantic: 'AnyOf', identityRoles: ['#rel-us'], edgeRouterRoles: [`@${erUs}`, '#rel-er-eu'] })).body.data.id;
    const serp = (await post('/service-edge-router-policies', { name: 'rel-serp', semantic: 'AllOf', serviceRoles: ['#rel-web'], edgeRouterRoles: ['#rel-er-eu'] })).body.data.id;

    expect(ids(await get(`/identities/${alice}/service-policies`))).toEqual(sorted([dial, bind]));
    expect(ids(await get(`/identities/${bob}/service-policies`))).toEqual([bind]);
    expect(ids(await get(`/identities/${alice}/edge-router-policies`))).toEqual([erpEu]);
    expect(ids(await get(`/identities/${bob}/edge-router-policies`))).toEqual([erpAll]);

    expect(ids(await get(`/identities/${alice}/services`))).toEqual(sorted([web, db]));
    expect(ids(await get(`/identities/${alice}/services?policyType=dial`))).toEqual([web]);
    expect(ids(await get(`/identities/${alice}/services?policyType=bind`))).toEqual([db]);
    expect(ids(await get(`/identities/${bob}/services?policyType=dial`))).toEqual([]);
    // The spec documents no 400 here; a bad policyType is one all the same.
    const badType = await c.http.get(`/edge/management/v1/identities/${alice}/services?policyType=sometimes`, { session: admin, expectStatus: 400, skipValidation: true });
    expect(badType.body.error.cause.field).toBe('policyType');

    expect(ids(await get(`/identities/${alice}/edge-routers`))).toEqual([erEu]);
    expect(ids(await get(`/identities/${bob}/edge-routers`))).toEqual(sorted([erEu, erUs]));
    const filtered = await get(`/identities/${bob}/edge-routers?filter=${encodeURIComponent('name = "rel-er-us"')}`);
    expect(ids(filtered)).toEqual([erUs]);
    expect(filtered.body.meta.pagination.totalCount).toBe(1);

    expect(ids(await get(`/edge-routers/${erEu}/edge-router-policies`))).toEqual(sorted([erpEu, erpAll]));
    expect(ids(await get(`/edge-routers/${erUs}/edge-router-policies`))).toEqual([erpAll]);
    // The spec gives this list the service policy envelope by mistake; OpenZiti answers with
    // service edge router policies, and so does this controller.
    const serpsOf = async (er: string) =>
      ids(await c.http.get(`/edge/management/v1/edge-routers/${er}/service-edge-router-policies`, { session: admin, expectStatus: 200, skipValidation: true }));
    expect(await serpsOf(erEu)).toEqual([serp]);
    expect(await serpsOf(erUs)).toEqual([]);
    expect(ids(await get(`/edge-routers/${erEu}/services`))).toEqual([web]);
    expect(ids(await get(`/edge-routers/${erUs}/services`))).toEqual([]);
    expect(ids(await get(`/edge-routers/${erEu}/identities`))).toEqual(sorted([alice, bob]));
    expect(ids(await get(`/edge-routers/${erUs}/identities`))).toEqual([bob]);

    expect(ids(await get(`/services/${web}/edge-routers`))).toEqual([erEu]);
    expect(ids(await get(`/services/${db}/edge-routers`))).toEqual([]);

    // The client API: a caller's own routers, and those usable for a service (edge router
    // policy ∩ service edge router policy), for services it may use only.
    const carol = await createPasswordIdentity(c, admin, 'rel-carol', 'carol-password');
    await c.http.patch(`/edge/management/v1/identities/${carol.id}`, { body: { roleAttributes: ['rel-eu'] }, session: admin, expectStatus: 200 });
    const mine = await c.http.get(`${C}/current-identity/edge-routers`, { session: carol.token, expectStatus: 200 });
    expect(ids(mine)).toEqual([erEu]);
    expect(mine.body.data[0]).toMatchObject({ name: 'rel-er-eu', isOnline: false, syncStatus: 'SYNC_UNKNOWN' });
    const forWeb = await c.http.get(`${C}/services/${web}/edge-routers`, { session: carol.token, expectStatus: 200 });
    expect(forWeb.body.data.edgeRouters.map((r: { name: string }) => r.name)).toEqual(['rel-er-eu']);
    await c.http.get(`${C}/services/${db}/edge-routers`, { session: carol.token, expectStatus: 404, skipValidation: true });

    expect(ids(await get(`/services/${web}/identities`))).toEqual(sorted([alice, carol.id]));
    expect(ids(await get(`/services/${db}/identities`))).toEqual(sorted([alice, bob]));
  });

  it('explains whether an identity may use a service and through which edge routers', async () => {
    const dana = (await post('/identities', { name: 'adv-dana', type: 'User', isAdmin: false, roleAttributes: ['adv-eu'] })).body.data.id;
    const svc = (await post('/services', { name: 'adv-svc', encryptionRequired: true, roleAttributes: ['adv-web'] })).body.data.id;
    const er1 = (await post('/edge-routers', { name: 'adv-er-1', roleAttributes: ['adv-er'] })).body.data.id;
    await post('/edge-routers', { name: 'adv-er-2', roleAttributes: ['adv-er-other'] });
    const advice = async () => (await get(`/identities/${dana}/policy-advice/${svc}`)).body.data;

    expect(await advice()).toMatchObject({ identityId: dana, serviceId: svc, isDialAllowed: false, isBindAllowed: false, identityRouterCount: 0, serviceRouterCount: 0, commonRouters: [] });
    await post('/service-policies', { name: 'adv-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#adv-eu'], serviceRoles: ['#adv-web'] });
    await post('/edge-router-policies', { name: 'adv-erp', semantic: 'AnyOf', identityRoles: ['#adv-eu'], edgeRouterRoles: ['#adv-er', '#adv-er-other'] });
    await post('/service-edge-router-policies', { name: 'adv-serp', semantic: 'AllOf', serviceRoles: ['#adv-web'], edgeRouterRoles: ['#adv-er'] });
    const a = await advice();
    expect(a).toMatchObject({
      identity: { id: dana, name: 'adv-dana' }, service: { id: svc, name: 'adv-svc' },
      isDialAllowed: true, isBindAllowed: false, identityRouterCount: 2, serviceRouterCount: 1,
    });
    expect(a.commonRouters).toEqual([expect.objectContaining({ id: er1, name: 'adv-er-1', isOnline: false })]);
    await get(`/identities/${dana}/policy-advice/nope`, 404);
  });

  it('answers 404 for an unknown owner', async () => {
    for (const path of ['/identities/nope/service-policies', '/identities/nope/edge-routers', '/edge-routers/nope/identities', '/services/nope/identities']) {
      const r = await c.http.get(`/edge/management/v1${path}`, { session: admin, skipValidation: true });
      expect(r.status).toBe(404);
    }
  });
});

describe('summary', () => {
  it('counts each resource, and the counts follow changes', async () => {
    const before = (await get('/summary')).body.data;
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['identities', 'edgeRouters', 'services', 'servicePolicies', 'configTypes', 'authPolicies']));
    expect(before.identities).toBe((await get('/identities?limit=1')).body.meta.pagination.totalCount);
    expect(before.configTypes).toBeGreaterThan(0);
    await post('/identities', { name: 'summary-new', type: 'User', isAdmin: false });
    await post('/edge-routers', { name: 'summary-er' });
    const after = (await get('/summary')).body.data;
    expect(after.identities).toBe(before.identities + 1);
    expect(after.edgeRouters).toBe(before.edgeRouters + 1);
    expect(after.services).toBe(before.services);
  });
});

describe('controllers', () => {
  it('lists this controller, online, with its API addresses, on both APIs', async () => {
    for (const base of ['/edge/management/v1', '/edge/client/v1']) {
      const r = await c.http.get(`${base}/controllers`, { session: admin, expectStatus: 200 });
      const online = r.body.data.filter((x: { isOnline: boolean }) => x.isOnline);
      expect(online).toHaveLength(1);
      expect(online[0].fingerprint).toMatch(/^[0-9a-f]{40}$/);
      expect(online[0].apiAddresses['edge-client'][0].url).toMatch(/^https:\/\/.+\/edge\/client\/v1$/);
      expect(r.body.meta.pagination.totalCount).toBe(r.body.data.length);
    }
    expect((await c.http.get('/edge/client/v1/controllers')).status).toBe(401);
  });
});

