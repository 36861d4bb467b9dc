/**
 * Lists asked for every row (`limit=-1`, `limit none`) on more rows than one page holds: the
 * answer holds them all, in order, with `limit: -1`, as OpenZiti's controller answers (the admin
 * console fills its pickers this way).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const MORE_THAN_A_PAGE = 520;
let c: TestController;
let admin: string;
const { get, post } = adminApi(() => c, () => admin);
const enc = encodeURIComponent;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
  for (let i = 0; i < MORE_THAN_A_PAGE; i += 16) {
    await Promise.all(Array.from({ length: Math.min(16, MORE_THAN_A_PAGE - i) }, (_, j) => {
      const n = String(i + j).padStart(4, '0');
      return Promise.all([post('/config-types', { name: `every-row-${n}` }), post('/identities', { name: `every-row-${n}`, type: 'Device', isAdmin: false })]);
    }));
  }
}, 180_000);
afterAll(async () => c?.stop());

describe('every-row lists', () => {
  it('answers limit=-1 with every row across pages, in order, and limit -1', async () => {
    const r = await get(`/config-types?limit=-1&filter=${enc('name contains "every-row-" sort by name')}`);
    expect(r.body.meta.pagination).toEqual({ limit: -1, offset: 0, totalCount: MORE_THAN_A_PAGE });
    expect(r.body.data.map((t: { name: string }) => t.name)).toEqual(Array.from({ length: MORE_THAN_A_PAGE }, (_, i) => `every-row-${String(i).padStart(4, '0')}`));
  });

  it('answers identities (rendered once, with their authenticators and enrollments) the same way', async () => {
    const r = await get(`/identities?limit=-1&filter=${enc('name contains "every-row-" sort by name')}`);
    expect(r.body.meta.pagination).toEqual({ limit: -1, offset: 0, totalCount: MORE_THAN_A_PAGE });
    expect(r.body.data.map((i: { name: string }) => i.name)).toEqual(Array.from({ length: MORE_THAN_A_PAGE }, (_, i) => `every-row-${String(i).padStart(4, '0')}`));
    expect(r.body.data[MORE_THAN_A_PAGE - 1]).toMatchObject({ name: `every-row-${String(MORE_THAN_A_PAGE - 1).padStart(4, '0')}`, authenticators: {} });
    // Asked again: the same, from the pages the gateway kept.
    expect((await get(`/identities?limit=-1&filter=${enc('name contains "every-row-" sort by name')}`)).body).toEqual(r.body);
  });

  it('answers limit none in the filter from its skip, and leaves a bounded list a page', async () => {
    const r = await get(`/config-types?filter=${enc('name contains "every-row-" sort by name desc skip 10 limit none')}`);
    expect(r.body.meta.pagination).toEqual({ limit: -1, offset: 10, totalCount: MORE_THAN_A_PAGE });
    const names = r.body.data.map((t: { name: string }) => t.name);
    expect(names).toHaveLength(MORE_THAN_A_PAGE - 10);
    expect(names[0]).toBe(`every-row-${String(MORE_THAN_A_PAGE - 11).padStart(4, '0')}`);
    expect(new Set(names).size).toBe(names.length);
    const page = await get('/config-types?limit=1000');
    expect(page.body.meta.pagination.limit).toBe(500);
    expect(page.body.data).toHaveLength(500);
  });
});

describe('a router with more service edge router policies than a page holds', () => {
  it('lists the services of every one of them', async () => {
    const router = (await post('/edge-routers', { name: 'every-row-er', roleAttributes: ['every-row-er'] })).body.data.id as string;
    const service = (await post('/services', { name: 'every-row-svc', encryptionRequired: true, roleAttributes: ['every-row-svc'] })).body.data.id as string;
    for (let i = 0; i < 500; i += 16) {
      await Promise.all(Array.from({ length: Math.min(16, 500 - i) }, (_, j) => post('/service-edge-router-policies', {
        name: `every-row-serp-${i + j}`, semantic: 'AllOf', serviceRoles: ['#nothing-here'], edgeRouterRoles: ['#every-row-er'],
      })));
    }
    // The 501st policy, the last in the order they are read in, is the one granting the service.
    await post('/service-edge-router-policies', { name: 'every-row-serp-last', semantic: 'AllOf', serviceRoles: ['#every-row-svc'], edgeRouterRoles: ['#every-row-er'] });
    const r = await get(`/edge-routers/${router}/services`);
    expect(r.body.data.map((s: { id: string }) => s.id)).toEqual([service]);
  }, 60_000);
});

describe('a session granted by more service policies than a page holds', () => {
  it('names every one of them in the management session list', async () => {
    const user = await createPasswordIdentity(c, admin, 'every-row-user', 'every-row-password-1');
    await post('/edge-routers', { name: 'every-row-user-er', roleAttributes: ['every-row-user'] });
    await post('/edge-router-policies', { name: 'every-row-user-erp', semantic: 'AllOf', identityRoles: [`@${user.id}`], edgeRouterRoles: ['#every-row-user'] });
    const service = (await post('/services', { name: 'every-row-user-svc', encryptionRequired: true, roleAttributes: ['every-row-user'] })).body.data.id as string;
    await post('/service-edge-router-policies', { name: 'every-row-user-serp', semantic: 'AllOf', serviceRoles: ['#every-row-user'], edgeRouterRoles: ['#every-row-user'] });
    const GRANTS = 501;
    for (let i = 0; i < GRANTS; i += 16) {
      await Promise.all(Array.from({ length: Math.min(16, GRANTS - i) }, (_, j) => post('/service-policies', {
        name: `every-row-dial-${i + j}`, type: 'Dial', semantic: 'AllOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${service}`],
      })));
    }
    const created = await c.http.post('/edge/client/v1/sessions', { body: { serviceId: service, type: 'Dial' }, session: user.token, expectStatus: 201 });
    const listed = await get(`/sessions?filter=${enc(`id = "${created.body.data.id as string}"`)}`);
    const names = listed.body.data[0].servicePolicies.map((p: { name: string }) => p.name);
    expect(names).toHaveLength(GRANTS);
    expect(new Set(names)).toEqual(new Set(Array.from({ length: GRANTS }, (_, i) => `every-row-dial-${i}`)));
  }, 60_000);
});
