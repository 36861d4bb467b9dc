/**
 * Which services an identity sees through the client API: Dial/Bind policies over role
 * attributes, AllOf and AnyOf, @id, #all, config resolution, filters and paging, and that a
 * policy change is visible on the next read. An admin also updates, patches and deletes
 * services here, as on the management API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestController, type TestController } from '../support/controller.js';
import { grpcCallsOf } from '../support/metrics.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const M = '/edge/management/v1';
const C = '/edge/client/v1';
let c: TestController;
let admin: string;
let eu: { id: string; token: string };
let euDb: { id: string; token: string };

const post = async (path: string, body: unknown) => (await c.http.post(`${M}${path}`, { body, session: admin, expectStatus: 201 })).body.data.id as string;
const del = (path: string) => c.http.delete(`${M}${path}`, { session: admin, expectStatus: 200 });
const patch = (path: string, body: unknown) => c.http.patch(`${M}${path}`, { body, session: admin, expectStatus: 200 });

async function visible(token: string, query = ''): Promise<Array<Record<string, any>>> {
  const r = await c.http.get(`${C}/services?limit=500${query}`, { session: token, expectStatus: 200 });
  return r.body.data;
}
const names = async (token: string, query = '') => (await visible(token, query)).map((s) => s.name).sort();
/** Waits until answers read now may be held: the gateway holds none just after a change (list-changes.ts). */
const settled = () => new Promise((resolve) => setTimeout(resolve, 1_100));

let web: string;
let db: string;
let both: string;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
  eu = await createPasswordIdentity(c, admin, 'eu-user', 'eu-password-1');
  euDb = await createPasswordIdentity(c, admin, 'eu-db-user', 'eu-db-password-1');
  await patch(`/identities/${eu.id}`, { roleAttributes: ['eu'] });
  await patch(`/identities/${euDb.id}`, { roleAttributes: ['eu', 'db'] });
  web = await post('/services', { name: 'web', encryptionRequired: true, roleAttributes: ['web'] });
  db = await post('/services', { name: 'db', encryptionRequired: true, roleAttributes: ['db'] });
  both = await post('/services', { name: 'web-db', encryptionRequired: true, roleAttributes: ['web', 'db'] });
});
afterAll(async () => c?.stop());

describe('client services', () => {
  it('shows a #web service to an #eu identity only while a Dial policy #eu → #web exists', async () => {
    expect(await names(eu.token)).toEqual([]);
    const policy = await post('/service-policies', { name: 'eu-web', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['#web'] });
    const seen = await visible(eu.token);
    expect(seen.map((s) => s.name).sort()).toEqual(['web', 'web-db']);
    expect(seen.find((s) => s.name === 'web')).toMatchObject({ id: web, permissions: ['Dial'], config: {}, encryptionRequired: true });
    expect(seen[0]!.postureQueries).toEqual([expect.objectContaining({ policyId: policy, policyType: 'Dial', isPassing: true, postureQueries: [] })]);
    await c.http.get(`${C}/services/${web}`, { session: eu.token, expectStatus: 200 });
    await c.http.get(`${C}/services/${db}`, { session: eu.token, expectStatus: 404 });
    await del(`/service-policies/${policy}`);
    expect(await names(eu.token)).toEqual([]);
    await c.http.get(`${C}/services/${web}`, { session: eu.token, expectStatus: 404 });
  });

  it('sees a policy change on the next read', async () => {
    const policy = await post('/service-policies', { name: 'eu-change', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['#db'] });
    expect(await names(eu.token)).toEqual(['db', 'web-db']);
    await patch(`/service-policies/${policy}`, { serviceRoles: ['#web'] });
    expect(await names(eu.token)).toEqual(['web', 'web-db']);
    await patch(`/identities/${eu.id}`, { roleAttributes: ['us'] });
    expect(await names(eu.token)).toEqual([]);
    await patch(`/identities/${eu.id}`, { roleAttributes: ['eu'] });
    await del(`/service-policies/${policy}`);
  });

  it('AllOf needs every attribute, AnyOf any of them, on both sides', async () => {
    const allOf = await post('/service-policies', { name: 'all-of', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu', '#db'], serviceRoles: ['#web', '#db'] });
    expect(await names(eu.token)).toEqual([]);
    expect(await names(euDb.token)).toEqual(['web-db']);
    await del(`/service-policies/${allOf}`);
    const anyOf = await post('/service-policies', { name: 'any-of', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eu', '#nobody'], serviceRoles: ['#web', '#db'] });
    expect(await names(eu.token)).toEqual(['db', 'web', 'web-db']);
    await del(`/service-policies/${anyOf}`);
  });

  it('selects by @id (and @name, stored as the id) and by #all', async () => {
    const byId = await post('/service-policies', { name: 'by-id', type: 'Dial', semantic: 'AllOf', identityRoles: [`@${eu.id}`], serviceRoles: ['@db'] });
    const detail = (await c.http.get(`${M}/service-policies/${byId}`, { session: admin, expectStatus: 200 })).body.data;
    expect(detail.serviceRoles).toEqual([`@${db}`]);
    expect(detail.serviceRolesDisplay).toEqual([{ role: `@${db}`, name: '@db' }]);
    expect(detail.identityRolesDisplay).toEqual([{ role: `@${eu.id}`, name: '@eu-user' }]);
    expect(await names(eu.token)).toEqual(['db']);
    expect(await names(euDb.token)).toEqual([]);
    await del(`/service-policies/${byId}`);
    const all = await post('/service-policies', { name: 'all', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['#all'] });
    expect(await names(eu.token)).toEqual(['db', 'web', 'web-db']);
    await del(`/service-policies/${all}`);
  });

  it('reports Bind and Dial permissions from the policies that grant them', async () => {
    const dial = await post('/service-policies', { name: 'dial-web', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['@web'] });
    const bind = await post('/service-policies', { name: 'bind-web', type: 'Bind', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['#web'] });
    const seen = await visible(eu.token);
    expect(Object.fromEntries(seen.map((s) => [s.name, s.permissions]))).toEqual({ web: ['Bind', 'Dial'], 'web-db': ['Bind'] });
    await del(`/service-policies/${dial}`);
    await del(`/service-policies/${bind}`);
  });

  it('resolves the configs of the requested config types, by name or id', async () => {
    const intercept = await post('/configs', { name: 'web-intercept', configTypeId: 'g7cIWbcGg', data: { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 443, high: 443 }] } });
    const host = await post('/configs', { name: 'web-host', configTypeId: 'NH5p4FpGR', data: { protocol: 'tcp', address: 'localhost', port: 8443 } });
    await patch(`/services/${web}`, { configs: [intercept, host] });
    const policy = await post('/service-policies', { name: 'cfg', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['@web'] });
    let [s] = await visible(eu.token, '&configTypes=intercept.v1');
    expect(s!.config).toEqual({ 'intercept.v1': { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 443, high: 443 }] } });
    expect(s!.configs.sort()).toEqual([intercept, host].sort());
    [s] = await visible(eu.token, '&configTypes=NH5p4FpGR&configTypes=intercept.v1');
    expect(Object.keys(s!.config).sort()).toEqual(['host.v1', 'intercept.v1']);
    [s] = await visible(eu.token);
    expect(s!.config).toEqual({});
    const one = await c.http.get(`${C}/services/${web}?configTypes=host.v1`, { session: eu.token, expectStatus: 200 });
    expect(one.body.data.config).toEqual({ 'host.v1': { protocol: 'tcp', address: 'localhost', port: 8443 } });
    await del(`/service-policies/${policy}`);
  });

  it('sends a page again without asking while nothing it shows changed, and shows a change of a config or a service on the next read', async () => {
    const intercept = await post('/configs', { name: 'again-intercept', configTypeId: 'g7cIWbcGg', data: { protocols: ['tcp'], addresses: ['again.ziti'], portRanges: [{ low: 80, high: 80 }] } });
    await patch(`/services/${db}`, { configs: [intercept] });
    const policy = await post('/service-policies', { name: 'again', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['@db'] });
    const shown = async () => (await visible(eu.token, '&configTypes=intercept.v1'))[0]!;
    expect((await shown()).config['intercept.v1'].addresses).toEqual(['again.ziti']);
    await settled();
    expect((await shown()).config['intercept.v1'].addresses).toEqual(['again.ziti']);
    const before = await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest');
    expect((await shown()).config['intercept.v1'].addresses).toEqual(['again.ziti']);
    expect(await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest')).toEqual(before);
    await patch(`/configs/${intercept}`, { data: { protocols: ['tcp'], addresses: ['changed.ziti'], portRanges: [{ low: 80, high: 80 }] } });
    expect((await shown()).config['intercept.v1'].addresses).toEqual(['changed.ziti']);
    await patch(`/services/${db}`, { name: 'db-renamed' });
    expect((await shown()).name).toBe('db-renamed');
    await patch(`/services/${db}`, { name: 'db', configs: [] });
    expect((await shown()).config).toEqual({});
    await del(`/service-policies/${policy}`);
    expect(await names(eu.token, '&configTypes=intercept.v1')).toEqual([]);
  });

  it('sends a page without configs again without asking while no policy change is heard, and a change on the next read', async () => {
    const policy = await post('/service-policies', { name: 'held', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['@web'] });
    expect(await names(eu.token)).toEqual(['web']);
    await settled();
    expect(await names(eu.token)).toEqual(['web']);
    const before = await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest');
    expect(await names(eu.token)).toEqual(['web']);
    expect(await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest')).toEqual(before);
    await patch(`/services/${web}`, { name: 'web-held' });
    expect(await names(eu.token)).toEqual(['web-held']);
    // Another identity's page is its own.
    expect(await names(euDb.token)).toEqual(['web-held']);
    await patch(`/services/${web}`, { name: 'web' });
    expect(await names(eu.token)).toEqual(['web']);
    await del(`/service-policies/${policy}`);
    expect(await names(eu.token)).toEqual([]);
  });

  it('reads a page no one kept and its digest in one call, and confirms the kept page by the digest alone', async () => {
    const policy = await post('/service-policies', { name: 'one-call', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['@web'] });
    const query = '&offset=0&sort=name';
    await settled();
    const before = await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest');
    expect(await names(eu.token, query)).toEqual(['web']);
    expect(await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest')).toEqual({
      ListServicesForIdentity: before.ListServicesForIdentity! + 1, GetServiceListDigest: before.GetServiceListDigest,
    });
    // A change the page does not show ends its hold: the digest is asked for, and it confirms the page.
    await post('/config-types', { name: 'one-call-unrelated' });
    expect(await names(eu.token, query)).toEqual(['web']);
    expect(await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest')).toEqual({
      ListServicesForIdentity: before.ListServicesForIdentity! + 1, GetServiceListDigest: before.GetServiceListDigest! + 1,
    });
    await del(`/service-policies/${policy}`);
  });

  it('holds a page for its caller and query only: another query, identity or set of role attributes gets its own', async () => {
    const policy = await post('/service-policies', { name: 'held-per-caller', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eu'], serviceRoles: ['#web', '#db'] });
    expect(await names(eu.token)).toEqual(['db', 'web', 'web-db']);
    await settled();
    expect(await names(eu.token)).toEqual(['db', 'web', 'web-db']);
    const before = await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest');
    expect(await names(eu.token)).toEqual(['db', 'web', 'web-db']);
    expect(await grpcCallsOf('ListServicesForIdentity', 'GetServiceListDigest')).toEqual(before);
    expect(await names(eu.token, `&filter=${encodeURIComponent('name contains "web"')}`)).toEqual(['web', 'web-db']);
    expect((await visible(eu.token, '&offset=2')).length).toBe(1);
    await patch(`/identities/${eu.id}`, { roleAttributes: ['elsewhere'] });
    await expect.poll(() => names(eu.token), { timeout: 5_000 }).toEqual([]);
    await patch(`/identities/${eu.id}`, { roleAttributes: ['eu'] });
    await expect.poll(() => names(eu.token), { timeout: 5_000 }).toEqual(['db', 'web', 'web-db']);
    await del(`/service-policies/${policy}`);
  });

  it('filters and pages the visible services', async () => {
    const policy = await post('/service-policies', { name: 'page', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#eu'], serviceRoles: ['#web', '#db'] });
    expect(await names(eu.token, `&filter=${encodeURIComponent('name contains "web"')}`)).toEqual(['web', 'web-db']);
    const page = await c.http.get(`${C}/services?limit=1&offset=1&filter=${encodeURIComponent('true sort by name')}`, { session: eu.token, expectStatus: 200 });
    expect(page.body.data.map((s: { name: string }) => s.name)).toEqual(['web']);
    expect(page.body.meta.pagination).toEqual({ limit: 1, offset: 1, totalCount: 3 });
    const bad = await c.http.get(`${C}/services?filter=${encodeURIComponent('nope = 1')}`, { session: eu.token, expectStatus: 400 });
    expect(bad.body.error.code).toBe('INVALID_FILTER');
    await del(`/service-policies/${policy}`);
  });

  it('lists posture queries of the checks a granting policy names', async () => {
    const mfa = await post('/posture-checks', { name: 'mfa-check', typeId: 'MFA', timeoutSeconds: 300, promptOnWake: true });
    const policy = await post('/service-policies', { name: 'posture', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: ['@db'], postureCheckRoles: [`@${mfa}`] });
    const [s] = await visible(eu.token);
    expect(s!.postureQueries).toEqual([expect.objectContaining({
      policyId: policy, policyType: 'Dial', isPassing: false,
      postureQueries: [expect.objectContaining({ id: mfa, queryType: 'MFA', timeout: 300, promptOnWake: true })],
    })]);
    await del(`/service-policies/${policy}`);
  });

  it('needs a session', async () => {
    await c.http.get(`${C}/services`, { expectStatus: 401 });
  });
});

describe('client service writes (admin only)', () => {
  const detail = async (id: string) => (await c.http.get(`${M}/services/${id}`, { session: admin, expectStatus: 200 })).body.data;
  const clientAdmin = async () => (await c.http.post(`${C}/authenticate?method=password`, { body: ADMIN, expectStatus: 200 })).body.data.token as string;

  it('lets an admin update, patch and delete a service, seen on the management API', async () => {
    const token = await clientAdmin();
    const id = await post('/services', { name: 'client-edited', encryptionRequired: true, roleAttributes: ['a'], tags: { k: 'v' } });
    await c.http.put(`${C}/services/${id}`, { body: { name: 'client-put', roleAttributes: ['b'] }, session: token, expectStatus: 200 });
    expect(await detail(id)).toMatchObject({ name: 'client-put', roleAttributes: ['b'], tags: {} });
    await c.http.patch(`${C}/services/${id}`, { body: { tags: { env: 'prod' } }, session: token, expectStatus: 200 });
    expect(await detail(id)).toMatchObject({ name: 'client-put', roleAttributes: ['b'], tags: { env: 'prod' } });
    await c.http.delete(`${C}/services/${id}`, { session: token, expectStatus: 200 });
    await c.http.get(`${M}/services/${id}`, { session: admin, expectStatus: 404 });
  });

  it('answers 404 for an unknown service', async () => {
    const r = await c.http.patch(`${C}/services/no-such-service`, { body: { name: 'x' }, session: admin, expectStatus: 404 });
    expect(r.body.error.code).toBe('NOT_FOUND');
  });

  it('refuses a non-admin with 401 UNAUTHORIZED and changes nothing', async () => {
    const id = await post('/services', { name: 'not-yours', encryptionRequired: true, roleAttributes: ['eu'] });
    // Visible to the caller, so the refusal is about admin rights, not about seeing the service.
    const policy = await post('/service-policies', { name: 'eu-sees-it', type: 'Dial', semantic: 'AllOf', identityRoles: ['#eu'], serviceRoles: [`@${id}`] });
    await c.http.get(`${C}/services/${id}`, { session: eu.token, expectStatus: 200 });
    const before = await detail(id);
    for (const r of [
      await c.http.put(`${C}/services/${id}`, { body: { name: 'taken-over' }, session: eu.token }),
      await c.http.patch(`${C}/services/${id}`, { body: { roleAttributes: ['mine'] }, session: eu.token }),
      await c.http.delete(`${C}/services/${id}`, { session: eu.token }),
    ]) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('UNAUTHORIZED');
      expect(r.headers['www-authenticate']).toContain('invalid');
    }
    await c.http.put(`${C}/services/${id}`, { body: { name: 'anonymous' }, expectStatus: 401 });
    expect(await detail(id)).toEqual(before);
    await del(`/service-policies/${policy}`);
    await del(`/services/${id}`);
  });
});
