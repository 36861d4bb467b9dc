/**
 * Answers held while no change is heard are renewed before their hold runs out when they are in
 * use (@edge/bus held.ts): a client polling its service list, its service-update marker, or
 * dialing a service again is answered from what is held, and the owner is asked again in the
 * background during the last fifth of the hold, so no request waits for it once per hold. The
 * hold here is 5 s: renewed by a use from 4 s on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { grpcCallsOf } from '../support/metrics.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const M = '/edge/management/v1';
const C = '/edge/client/v1';
const HOLD_MS = 5_000;
let c: TestController;
let admin: string;
let user: { id: string; token: string };
let service: string;

const post = async (path: string, body: unknown) => (await c.http.post(`${M}${path}`, { body, session: admin, expectStatus: 201 })).body.data.id as string;
const sleepUntil = (t: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - Date.now())));

beforeAll(async () => {
  c = await startTestController({ env: { EDGE_EVALUATION_CACHE_TTL_MS: String(HOLD_MS) } });
  admin = await c.login();
  user = await createPasswordIdentity(c, admin, 'renewal-user', 'renewal-password-1');
  await c.http.patch(`${M}/identities/${user.id}`, { body: { roleAttributes: ['renewal'] }, session: admin, expectStatus: 200 });
  service = await post('/services', { name: 'renewal-svc', encryptionRequired: true, roleAttributes: ['renewal'] });
  await post('/edge-routers', { name: 'renewal-er', roleAttributes: ['renewal'] });
  await post('/service-policies', { name: 'renewal-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#renewal'], serviceRoles: ['#renewal'] });
  await post('/edge-router-policies', { name: 'renewal-erp', semantic: 'AnyOf', identityRoles: ['#renewal'], edgeRouterRoles: ['#renewal'] });
  await post('/service-edge-router-policies', { name: 'renewal-serp', semantic: 'AnyOf', serviceRoles: ['#renewal'], edgeRouterRoles: ['#renewal'] });
  // Answers read just after a change are not held.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
});
afterAll(async () => c?.stop());

/**
 * Asks once (the answer is held), again in the last fifth of the hold (answered as held, renewed
 * in the background: `renewal` calls), and again after the first hold's end: no call.
 */
async function renewsWhileUsed(ask: () => Promise<void>, methods: string[], renewal: Record<string, number>) {
  const start = Date.now();
  await ask();
  const filled = await grpcCallsOf(...methods);
  await sleepUntil(start + HOLD_MS * 0.86);
  await ask();
  await expect.poll(() => grpcCallsOf(...methods), { timeout: 3_000 })
    .toEqual(Object.fromEntries(methods.map((m) => [m, filled[m]! + (renewal[m] ?? 0)])));
  await sleepUntil(start + HOLD_MS * 1.12);
  await ask();
  expect(await grpcCallsOf(...methods)).toEqual(Object.fromEntries(methods.map((m) => [m, filled[m]! + (renewal[m] ?? 0)])));
}

describe('held answers in use', () => {
  it('renew the client service list page by its digest before its hold runs out', async () => {
    const list = async () => {
      const r = await c.http.get(`${C}/services`, { session: user.token, expectStatus: 200 });
      expect(r.body.data.map((s: { id: string }) => s.id)).toEqual([service]);
    };
    await renewsWhileUsed(list, ['ListServicesForIdentity', 'GetServiceListDigest'], { GetServiceListDigest: 1 });
  });

  it('renew the service-update marker before its hold runs out', async () => {
    const marker = async () => {
      const r = await c.http.get(`${C}/current-api-session/service-updates`, { session: user.token, expectStatus: 200 });
      expect(typeof r.body.data.lastChangeAt).toBe('string');
    };
    await renewsWhileUsed(marker, ['ObserveServiceList'], { ObserveServiceList: 1 });
  });

  it('renew the access a session creation was answered with before its hold runs out', async () => {
    const dial = async () => {
      const r = await c.http.post(`${C}/sessions`, { body: { serviceId: service, type: 'Dial' }, session: user.token, expectStatus: 201 });
      expect(r.body.data.edgeRouters.map((e: { name: string }) => e.name)).toEqual(['renewal-er']);
    };
    await renewsWhileUsed(dial, ['GetServiceAccesses'], { GetServiceAccesses: 1 });
  });
});
