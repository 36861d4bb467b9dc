/**
 * The three policy kinds end to end: every field, role validation naming the field,
 * *RolesDisplay, filters, and the identities a policy selects.
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

describe('service policies', () => {
  let identity: string;
  let service: string;
  let check: string;
  beforeAll(async () => {
    identity = (await post('/identities', { name: 'sp-ident', type: 'User', isAdmin: false, roleAttributes: ['sp-eu'] })).body.data.id;
    service = (await post('/services', { name: 'sp-svc', encryptionRequired: true, roleAttributes: ['sp-web'] })).body.data.id;
    check = (await post('/posture-checks', { name: 'sp-check', typeId: 'DOMAIN', domains: ['corp.local'] })).body.data.id;
  });

  it('round-trips every field with the display of each role', async () => {
    const body = {
      name: 'sp-full', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#sp-eu', `@${identity}`], serviceRoles: [`@${service}`],
      postureCheckRoles: ['@sp-check'], tags: { k: 'v' },
    };
    const id = (await post('/service-policies', body)).body.data.id;
    let d = (await get(`/service-policies/${id}`)).body.data;
    expect(d).toMatchObject({ ...body, postureCheckRoles: [`@${check}`] });
    // As GetNamedIdentityRoles in controller/internal/routes: an `@id` role is shown as `@<name>`.
    expect(d.identityRolesDisplay).toEqual([{ role: '#sp-eu', name: '#sp-eu' }, { role: `@${identity}`, name: '@sp-ident' }]);
    expect(d.serviceRolesDisplay).toEqual([{ role: `@${service}`, name: '@sp-svc' }]);
    expect(d.postureCheckRolesDisplay).toEqual([{ role: `@${check}`, name: '@sp-check' }]);
    await put(`/service-policies/${id}`, { name: 'sp-full-2', type: 'Dial', semantic: 'AllOf' });
    d = (await get(`/service-policies/${id}`)).body.data;
    expect(d).toMatchObject({ name: 'sp-full-2', type: 'Dial', semantic: 'AllOf', identityRoles: [], serviceRoles: [], postureCheckRoles: [], tags: {} });
    await patch(`/service-policies/${id}`, { identityRoles: ['#all'] });
    expect((await get(`/service-policies/${id}`)).body.data).toMatchObject({ name: 'sp-full-2', identityRoles: ['#all'] });
    await del(`/service-policies/${id}`);
    await get(`/service-policies/${id}`, 404);
  });

  it('refuses bad roles, types and semantics, naming the field, and changes nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ identityRoles: ['eu'] }, 'identityRoles[0]'],
      [{ serviceRoles: ['#all', '#web'] }, 'serviceRoles'],
      [{ postureCheckRoles: ['#'] }, 'postureCheckRoles[0]'],
      [{ serviceRoles: ['@no-such-service'] }, 'serviceRoles[0]'],
      [{ identityRoles: ['@no-such-identity'] }, 'identityRoles[0]'],
      [{ type: 'Connect' }, 'type'],
      [{ semantic: 'OneOf' }, 'semantic'],
    ];
    for (const [extra, field] of cases) {
      const r = await post('/service-policies', { name: 'sp-bad', type: 'Dial', semantic: 'AllOf', ...extra }, 400);
      expect(r.body.error, JSON.stringify(extra)).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field } });
    }
    const missing = await post('/service-policies', { name: 'sp-bad', type: 'Dial' }, 400);
    expect(missing.body.error.cause.field).toBe('semantic');
    expect((await get(`/service-policies?filter=${enc('name = "sp-bad"')}`)).body.data).toHaveLength(0);
    const id = (await post('/service-policies', { name: 'sp-keep', type: 'Dial', semantic: 'AllOf', identityRoles: ['#a'] })).body.data.id;
    await patch(`/service-policies/${id}`, { identityRoles: ['a'] }, 400);
    expect((await get(`/service-policies/${id}`)).body.data.identityRoles).toEqual(['#a']);
  });

  it('lists the identities, services and posture checks a policy selects, and filters', async () => {
    const id = (await post('/service-policies', { name: 'sp-subs', type: 'Dial', semantic: 'AllOf', identityRoles: ['#sp-eu'], serviceRoles: ['#sp-web'], postureCheckRoles: ['#all'] })).body.data.id;
    expect((await get(`/service-policies/${id}/identities`)).body.data.map((x: { id: string }) => x.id)).toEqual([identity]);
    expect((await get(`/service-policies/${id}/services`)).body.data.map((x: { id: string }) => x.id)).toEqual([service]);
    expect((await get(`/service-policies/${id}/posture-checks`)).body.data.map((x: { id: string }) => x.id)).toEqual([check]);
    const none = (await post('/service-policies', { name: 'sp-none', type: 'Dial', semantic: 'AllOf' })).body.data.id;
    expect((await get(`/service-policies/${none}/identities`)).body.data).toEqual([]);
    const listed = await get(`/service-policies?filter=${enc('type = "Dial" and anyOf(identityRoles) = "#sp-eu"')}`);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([id]);
  });
});

describe('edge router policies and service edge router policies', () => {
  it('round-trip every field, with edge routers named and listed by the identity service', async () => {
    const identity = (await post('/identities', { name: 'erp-ident', type: 'User', isAdmin: false, roleAttributes: ['erp'] })).body.data.id;
    const router = (await post('/edge-routers', { name: 'erp-router', roleAttributes: ['public'] })).body.data.id;
    const erp = (await post('/edge-router-policies', { name: 'erp', semantic: 'AnyOf', identityRoles: ['#erp'], edgeRouterRoles: ['@erp-router', '#public'], tags: { a: 'b' } })).body.data.id;
    const d = (await get(`/edge-router-policies/${erp}`)).body.data;
    expect(d).toMatchObject({ name: 'erp', semantic: 'AnyOf', identityRoles: ['#erp'], edgeRouterRoles: [`@${router}`, '#public'], isSystem: false, tags: { a: 'b' } });
    expect(d.edgeRouterRolesDisplay).toEqual([{ role: `@${router}`, name: '@erp-router' }, { role: '#public', name: '#public' }]);
    expect((await get(`/edge-router-policies/${erp}/identities`)).body.data.map((x: { id: string }) => x.id)).toEqual([identity]);
    expect((await get(`/edge-router-policies/${erp}/edge-routers`)).body.data.map((x: { id: string }) => x.id)).toEqual([router]);
    expect((await post('/edge-router-policies', { name: 'erp-unknown', semantic: 'AllOf', edgeRouterRoles: ['@no-router'] }, 400)).body.error.cause.field).toBe('edgeRouterRoles[0]');
    await patch(`/edge-router-policies/${erp}`, { edgeRouterRoles: ['#all'] });
    expect((await get(`/edge-router-policies/${erp}`)).body.data.edgeRouterRoles).toEqual(['#all']);
    expect((await post('/edge-router-policies', { name: 'erp-bad', semantic: 'AllOf', edgeRouterRoles: ['public'] }, 400)).body.error.cause.field).toBe('edgeRouterRoles[0]');
    await del(`/edge-router-policies/${erp}`);

    const svc = (await post('/services', { name: 'serp-svc', encryptionRequired: true })).body.data.id;
    const serp = (await post('/service-edge-router-policies', { name: 'serp', semantic: 'AllOf', serviceRoles: ['@serp-svc'], edgeRouterRoles: ['#all'] })).body.data.id;
    const s = (await get(`/service-edge-router-policies/${serp}`)).body.data;
    expect(s).toMatchObject({ name: 'serp', semantic: 'AllOf', serviceRoles: [`@${svc}`], edgeRouterRoles: ['#all'], tags: {} });
    expect(s.serviceRolesDisplay).toEqual([{ role: `@${svc}`, name: '@serp-svc' }]);
    await put(`/service-edge-router-policies/${serp}`, { name: 'serp-2', semantic: 'AnyOf', serviceRoles: ['#x'] });
    expect((await get(`/service-edge-router-policies/${serp}`)).body.data).toMatchObject({ name: 'serp-2', semantic: 'AnyOf', serviceRoles: ['#x'], edgeRouterRoles: [] });
    expect((await post('/service-edge-router-policies', { name: 'serp-bad', semantic: 'AllOf', serviceRoles: ['#all', '#x'] }, 400)).body.error.cause.field).toBe('serviceRoles');
  });
});
