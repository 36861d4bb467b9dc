/**
 * An identity's own service configs: assigned, listed and removed on the management API, and
 * replacing the service's config of the same type in what that identity's client API shows.
 */
import { describe, expect, it } from 'vitest';
import { adminApi } from '../support/admin-api.js';
import { useController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';
import { eventually } from '../support/eventually.js';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const { get, post, patch } = adminApi(() => c, () => admin);

describe('identity service configs', () => {
  it('overrides a service config for one identity only, until removed', async () => {
    const type = (await post('/config-types', { name: 'isc.v1', schema: { type: 'object' } })).body.data.id;
    const shared = (await post('/configs', { name: 'isc-shared', configTypeId: type, data: { who: 'everyone' } })).body.data.id;
    const own = (await post('/configs', { name: 'isc-own', configTypeId: type, data: { who: 'only erin' } })).body.data.id;
    const svc = (await post('/services', { name: 'isc-svc', encryptionRequired: true, roleAttributes: ['isc'], configs: [shared] })).body.data.id;
    await post('/service-policies', { name: 'isc-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#isc-user'], serviceRoles: ['#isc'] });
    const erin = await createPasswordIdentity(c, admin, 'isc-erin', 'erin-password');
    const finn = await createPasswordIdentity(c, admin, 'isc-finn', 'finn-password');
    for (const u of [erin, finn]) await patch(`/identities/${u.id}`, { roleAttributes: ['isc-user'] });
    const configOf = async (token: string) =>
      (await c.http.get(`/edge/client/v1/services/${svc}?configTypes=isc.v1`, { session: token, expectStatus: 200 })).body.data.config;

    expect(await configOf(erin.token)).toEqual({ 'isc.v1': { who: 'everyone' } });
    await post(`/identities/${erin.id}/service-configs`, [{ serviceId: svc, configId: own }], 200);
    const list = (await get(`/identities/${erin.id}/service-configs`)).body.data;
    expect(list).toEqual([expect.objectContaining({ serviceId: svc, configId: own, service: expect.objectContaining({ name: 'isc-svc' }), config: expect.objectContaining({ name: 'isc-own' }) })]);
    expect(await configOf(erin.token)).toEqual({ 'isc.v1': { who: 'only erin' } });
    expect(await configOf(finn.token)).toEqual({ 'isc.v1': { who: 'everyone' } });
    const listed = await c.http.get(`/edge/client/v1/services?configTypes=isc.v1&filter=${encodeURIComponent('name = "isc-svc"')}`, { session: erin.token, expectStatus: 200 });
    expect(listed.body.data[0].config).toEqual({ 'isc.v1': { who: 'only erin' } });

    await c.http.delete(`/edge/management/v1/identities/${erin.id}/service-configs`, { body: [{ serviceId: svc, configId: own }], session: admin, expectStatus: 200 });
    expect((await get(`/identities/${erin.id}/service-configs`)).body.data).toEqual([]);
    expect(await configOf(erin.token)).toEqual({ 'isc.v1': { who: 'everyone' } });

    await post(`/identities/${erin.id}/service-configs`, [{ serviceId: svc, configId: own }], 200);
    await c.http.delete(`/edge/management/v1/identities/${erin.id}/service-configs`, { session: admin, expectStatus: 200 });
    expect((await get(`/identities/${erin.id}/service-configs`)).body.data).toEqual([]);
  });

  it('refuses unknown services and configs naming their place in the body, and unknown identities', async () => {
    const id = (await post('/identities', { name: 'isc-bad', type: 'User', isAdmin: false })).body.data.id;
    const svc = (await post('/services', { name: 'isc-bad-svc', encryptionRequired: false })).body.data.id;
    const r = await c.http.post(`/edge/management/v1/identities/${id}/service-configs`, { body: [{ serviceId: svc, configId: 'nope' }], session: admin, expectStatus: 400 });
    expect(r.body.error).toMatchObject({ code: 'REFERENCED_ENTITY_NOT_FOUND', cause: { field: '[0].configId', value: 'nope' } });
    const s = await c.http.post(`/edge/management/v1/identities/${id}/service-configs`, { body: [{ serviceId: 'nope', configId: 'x' }], session: admin, expectStatus: 400 });
    expect(s.body.error.cause.field).toBe('[0].serviceId');
    const bad = await c.http.post(`/edge/management/v1/identities/${id}/service-configs`, { body: [{ serviceId: svc }], session: admin, expectStatus: 400 });
    expect(bad.body.error.code).toBe('COULD_NOT_VALIDATE');
    await c.http.get('/edge/management/v1/identities/nope/service-configs', { session: admin, expectStatus: 404 });
  });

  // As IdentityManager.ApplyUpdateServiceConfigs (controller/model/identity_manager.go).
  it('refuses a config whose type does not target services, on serviceConfigs, and changes nothing', async () => {
    const routerType = (await post('/config-types', { name: 'isc-router.v1', schema: { type: 'object' }, target: 'router' })).body.data.id;
    const forRouters = (await post('/configs', { name: 'isc-router-cfg', configTypeId: routerType, data: {} })).body.data.id;
    const svc = (await post('/services', { name: 'isc-target-svc', encryptionRequired: true })).body.data.id;
    const id = (await post('/identities', { name: 'isc-target', type: 'User', isAdmin: false })).body.data.id;
    const r = await c.http.post(`/edge/management/v1/identities/${id}/service-configs`, { body: [{ serviceId: svc, configId: forRouters }], session: admin, expectStatus: 400 });
    expect(r.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'serviceConfigs' } });
    expect((await get(`/identities/${id}/service-configs`)).body.data).toEqual([]);
  });

  it('takes a body naming one service and config type twice: the later entry wins', async () => {
    const type = (await post('/config-types', { name: 'isc-dup.v1', schema: { type: 'object' } })).body.data.id;
    const first = (await post('/configs', { name: 'isc-dup-1', configTypeId: type, data: {} })).body.data.id;
    const second = (await post('/configs', { name: 'isc-dup-2', configTypeId: type, data: {} })).body.data.id;
    const svc = (await post('/services', { name: 'isc-dup-svc', encryptionRequired: true })).body.data.id;
    const id = (await post('/identities', { name: 'isc-dup', type: 'User', isAdmin: false })).body.data.id;
    await post(`/identities/${id}/service-configs`, [{ serviceId: svc, configId: first }, { serviceId: svc, configId: first }], 200);
    await post(`/identities/${id}/service-configs`, [{ serviceId: svc, configId: first }, { serviceId: svc, configId: second }], 200);
    expect((await get(`/identities/${id}/service-configs`)).body.data).toEqual([expect.objectContaining({ serviceId: svc, configId: second })]);
  });

  it("drops an identity's assignments when the service or the config they name is deleted", async () => {
    const type = (await post('/config-types', { name: 'isc-gone.v1', schema: { type: 'object' } })).body.data.id;
    const config = (await post('/configs', { name: 'isc-gone-config', configTypeId: type, data: {} })).body.data.id;
    const kept = (await post('/configs', { name: 'isc-gone-kept', configTypeId: type, data: {} })).body.data.id;
    const doomed = (await post('/services', { name: 'isc-gone-svc', encryptionRequired: true })).body.data.id;
    const other = (await post('/services', { name: 'isc-gone-other', encryptionRequired: true })).body.data.id;
    const id = (await post('/identities', { name: 'isc-gone', type: 'User', isAdmin: false })).body.data.id;
    await post(`/identities/${id}/service-configs`, [{ serviceId: doomed, configId: kept }, { serviceId: other, configId: config }], 200);
    const assigned = async () => (await get(`/identities/${id}/service-configs`)).body.data.map((a: { serviceId: string; configId: string }) => `${a.serviceId}/${a.configId}`).sort();
    expect(await assigned()).toEqual([`${doomed}/${kept}`, `${other}/${config}`].sort());
    await c.http.delete(`/edge/management/v1/services/${doomed}`, { session: admin, expectStatus: 200 });
    await eventually(async () => (await assigned()).length === 1);
    expect(await assigned()).toEqual([`${other}/${config}`]);
    await c.http.delete(`/edge/management/v1/configs/${config}`, { session: admin, expectStatus: 200 });
    await eventually(async () => (await assigned()).length === 0);
  });
});
