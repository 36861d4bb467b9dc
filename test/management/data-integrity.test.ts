/**
 * Data integrity runs: a planted inconsistency across owners (an identity removed behind the
 * identity service's back, so no event told auth and pki) is found by a check, left alone by
 * it, and repaired by a fix.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminApi } from '../support/admin-api.js';
import { useController, type TestController } from '../support/controller.js';
import { TEST_DATABASE_URL } from '../support/infra.js';
import { createPasswordIdentity } from '../support/password-identity.js';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const { get, post } = adminApi(() => c, () => admin);

async function sql(text: string, values: unknown[] = []) {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    return (await db.query(text, values)).rows;
  } finally {
    await db.end();
  }
}

async function finished() {
  for (let i = 0; i < 100; i++) {
    const r = (await get('/database/data-integrity-results')).body.data;
    if (!r.inProgress) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('integrity run did not finish');
}

describe('data integrity', () => {
  it('finds what other services keep for an identity that is gone, and removes it when fixing', async () => {
    const gone = await createPasswordIdentity(c, admin, 'integrity-gone', 'gone-password');
    const withEnrollment = (await post('/identities', { name: 'integrity-enrolling', type: 'User', isAdmin: false, enrollment: { ott: true } })).body.data.id;
    await createPasswordIdentity(c, admin, 'integrity-fine', 'fine-password');
    // A policy naming an identity, and an identity's own config of a service, both left dangling.
    const roled = (await post('/identities', { name: 'integrity-roled', type: 'User', isAdmin: false })).body.data.id;
    const policy = (await post('/service-policies', { name: 'integrity-policy', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${roled}`, '#keep'], serviceRoles: ['#all'] })).body.data.id;
    const type = (await post('/config-types', { name: 'integrity.v1', schema: { type: 'object' } })).body.data.id;
    const config = (await post('/configs', { name: 'integrity-config', configTypeId: type, data: {} })).body.data.id;
    const svc = (await post('/services', { name: 'integrity-svc', encryptionRequired: true })).body.data.id;
    const configured = (await post('/identities', { name: 'integrity-configured', type: 'User', isAdmin: false })).body.data.id;
    await post(`/identities/${configured}/service-configs`, [{ serviceId: svc, configId: config }], 200);
    await sql(`DELETE FROM "${c.prefix}_identity".identities WHERE id = ANY($1)`, [[gone.id, withEnrollment, roled]]);
    await sql(`DELETE FROM "${c.prefix}_policy".services WHERE id = $1`, [svc]);

    await post('/database/check-data-integrity', {}, 202);
    const checked = await finished();
    expect(checked).toMatchObject({ fixingErrors: false, error: '', tooManyErrors: false });
    const about = (id: string) => checked.results.filter((r: { description: string }) => r.description.includes(id));
    expect(about(gone.id)).toEqual([expect.objectContaining({ fixed: false })]);
    expect(about(withEnrollment)).toEqual([expect.objectContaining({ fixed: false })]);
    expect(about(roled)).toEqual([expect.objectContaining({ fixed: false, description: expect.stringContaining(policy) })]);
    expect(about(svc)).toEqual([expect.objectContaining({ fixed: false })]);
    expect(checked.results).toHaveLength(4);
    expect(await sql(`SELECT 1 FROM "${c.prefix}_auth".authenticators WHERE identity_id = $1`, [gone.id])).toHaveLength(1);

    await post('/database/fix-data-integrity', {}, 202);
    const fixed = await finished();
    expect(fixed.fixingErrors).toBe(true);
    expect(fixed.results.every((r: { fixed: boolean }) => r.fixed)).toBe(true);
    expect(await sql(`SELECT 1 FROM "${c.prefix}_auth".authenticators WHERE identity_id = $1`, [gone.id])).toHaveLength(0);
    expect(await sql(`SELECT 1 FROM "${c.prefix}_pki".enrollments WHERE identity_id = $1`, [withEnrollment])).toHaveLength(0);
    expect((await c.http.get('/edge/client/v1/current-identity', { session: gone.token })).status).toBe(401);
    expect((await get(`/service-policies/${policy}`)).body.data.identityRoles).toEqual(['#keep']);
    expect((await get(`/identities/${configured}/service-configs`)).body.data).toEqual([]);

    await post('/database/check-data-integrity', {}, 202);
    expect((await finished()).results).toEqual([]);
  });

  it('finds routers holding a config that is gone, and takes it out when fixing', async () => {
    const type = (await post('/config-types', { name: 'integrity-router.v1', schema: { type: 'object' }, target: 'router' })).body.data.id;
    const config = (await post('/configs', { name: 'integrity-router-config', configTypeId: type, data: {} })).body.data.id;
    const router = (await post('/edge-routers', { name: 'integrity-router', configs: [config] })).body.data.id;
    await sql(`DELETE FROM "${c.prefix}_policy".configs WHERE id = $1`, [config]);

    await post('/database/check-data-integrity', {}, 202);
    const about = (await finished()).results.filter((r: { description: string }) => r.description.includes(config));
    expect(about).toEqual([expect.objectContaining({ fixed: false, description: expect.stringContaining(router) })]);
    await post('/database/fix-data-integrity', {}, 202);
    await finished();
    expect((await get(`/edge-routers/${router}`)).body.data.configs).toEqual([]);
  });

  it('finds sessions whose API session is gone, and ends them when fixing', async () => {
    const user = await createPasswordIdentity(c, admin, 'integrity-session-user', 'session-password');
    await c.http.patch(`/edge/management/v1/identities/${user.id}`, { body: { roleAttributes: ['isess'] }, session: admin, expectStatus: 200 });
    const svc = (await post('/services', { name: 'integrity-session-svc', encryptionRequired: true, roleAttributes: ['isess'] })).body.data.id;
    await post('/edge-routers', { name: 'integrity-session-er', roleAttributes: ['isess'] });
    await post('/service-policies', { name: 'isess-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#isess'], serviceRoles: ['#isess'] });
    await post('/edge-router-policies', { name: 'isess-erp', semantic: 'AllOf', identityRoles: ['#isess'], edgeRouterRoles: ['#isess'] });
    await post('/service-edge-router-policies', { name: 'isess-serp', semantic: 'AllOf', serviceRoles: ['#isess'], edgeRouterRoles: ['#isess'] });
    const session = (await c.http.post('/edge/client/v1/sessions', { body: { serviceId: svc, type: 'Dial' }, session: user.token, expectStatus: 201 })).body.data.id;
    await sql(`DELETE FROM "${c.prefix}_auth".api_sessions WHERE identity_id = $1`, [user.id]);

    await post('/database/check-data-integrity', {}, 202);
    const checked = (await finished()).results.filter((r: { description: string }) => r.description.includes(session));
    expect(checked).toEqual([expect.objectContaining({ fixed: false, description: expect.stringContaining('API session') })]);
    await get(`/sessions/${session}`);

    await post('/database/fix-data-integrity', {}, 202);
    expect((await finished()).results.filter((r: { description: string }) => r.description.includes(session))).toEqual([expect.objectContaining({ fixed: true })]);
    await get(`/sessions/${session}`, 404);
  });

  it('finds terminators whose router is gone, and deletes them when fixing', async () => {
    const svc = (await post('/services', { name: 'integrity-term-svc', encryptionRequired: true })).body.data.id;
    const router = (await post('/transit-routers', { name: 'integrity-term-tr' })).body.data.id;
    const terminator = (await post('/terminators', { service: svc, router, binding: 'edge', address: 'a' })).body.data.id;
    await sql(`DELETE FROM "${c.prefix}_identity".routers WHERE id = $1`, [router]);

    await post('/database/check-data-integrity', {}, 202);
    const about = (r: { results: Array<{ description: string }> }) => r.results.filter((x) => x.description.includes(terminator));
    expect(about(await finished())).toEqual([expect.objectContaining({ fixed: false, description: expect.stringContaining(router) })]);
    await get(`/terminators/${terminator}`);

    await post('/database/fix-data-integrity', {}, 202);
    expect(about(await finished())).toEqual([expect.objectContaining({ fixed: true })]);
    await get(`/terminators/${terminator}`, 404);
  });
});
