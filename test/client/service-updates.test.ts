/**
 * The service-update marker: it moves when something changes what the caller's service list
 * shows, and not when something changes that the caller cannot see.
 */
import { describe, expect, it } from 'vitest';
import { adminApi } from '../support/admin-api.js';
import { useController, type TestController } from '../support/controller.js';
import { grpcCallsOf } from '../support/metrics.js';
import { createPasswordIdentity } from '../support/password-identity.js';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const { post, patch } = adminApi(() => c, () => admin);

describe('service updates', () => {
  it('moves on a relevant change only', async () => {
    const user = await createPasswordIdentity(c, admin, 'marker-user', 'marker-password');
    await patch(`/identities/${user.id}`, { roleAttributes: ['mark'] });
    const marker = async () => {
      const r = await c.http.get('/edge/client/v1/current-api-session/service-updates', { session: user.token, expectStatus: 200 });
      return r.body.data.lastChangeAt as string;
    };
    const settle = () => new Promise((r) => setTimeout(r, 20));

    const first = await marker();
    await settle();
    expect(await marker()).toBe(first);

    // Invisible to this identity: a service and a policy for other identities.
    const other = (await post('/services', { name: 'marker-other', encryptionRequired: true, roleAttributes: ['other'] })).body.data.id;
    await post('/service-policies', { name: 'marker-other-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#someone-else'], serviceRoles: ['#other'] });
    await settle();
    expect(await marker()).toBe(first);

    // Visible: a policy granting this identity a service.
    const svc = (await post('/services', { name: 'marker-svc', encryptionRequired: true, roleAttributes: ['mark'] })).body.data.id;
    await post('/service-policies', { name: 'marker-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#mark'], serviceRoles: ['#mark'] });
    const second = await marker();
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
    await settle();
    expect(await marker()).toBe(second);

    // A change to a service it sees moves it; a change to one it does not see does not.
    await patch(`/services/${other}`, { maxIdleTimeMillis: 5 });
    expect(await marker()).toBe(second);
    await patch(`/services/${svc}`, { maxIdleTimeMillis: 5 });
    expect(Date.parse(await marker())).toBeGreaterThan(Date.parse(second));
  });

  it('is answered without a call while no change of what the list shows is heard, unless it names posture checks', async () => {
    const user = await createPasswordIdentity(c, admin, 'marker-held', 'marker-held-password');
    await patch(`/identities/${user.id}`, { roleAttributes: ['held'] });
    const svc = (await post('/services', { name: 'marker-held-svc', encryptionRequired: true, roleAttributes: ['held'] })).body.data.id;
    await post('/service-policies', { name: 'marker-held-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#held'], serviceRoles: ['#held'] });
    const marker = async () => (await c.http.get('/edge/client/v1/current-api-session/service-updates', { session: user.token, expectStatus: 200 })).body.data.lastChangeAt as string;
    const first = await marker();
    // Just after a change nothing is held (list-changes.ts): the first poll after it settled is.
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await marker()).toBe(first);
    const before = await grpcCallsOf('ObserveServiceList');
    expect(await marker()).toBe(first);
    expect(await marker()).toBe(first);
    expect(await grpcCallsOf('ObserveServiceList')).toEqual(before);
    // A change of a service it sees is seen by the next poll.
    await new Promise((r) => setTimeout(r, 20));
    await patch(`/services/${svc}`, { maxIdleTimeMillis: 7 });
    const second = await marker();
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
    // Once a posture check guards it, every poll asks (whether it passes changes with time).
    const check = (await post('/posture-checks', { name: 'marker-held-domain', typeId: 'DOMAIN', domains: ['corp.example'], roleAttributes: ['held'] })).body.data.id;
    await post('/service-policies', { name: 'marker-held-guarded', type: 'Dial', semantic: 'AllOf', identityRoles: ['#held'], serviceRoles: ['#held'], postureCheckRoles: [`@${check}`] });
    await new Promise((r) => setTimeout(r, 1_100));
    await marker();
    const guarded = await grpcCallsOf('ObserveServiceList');
    await marker();
    await marker();
    expect(await grpcCallsOf('ObserveServiceList')).toEqual({ ObserveServiceList: guarded.ObserveServiceList! + 2 });
  });

  // SDKs poll the marker to learn that a posture query's isPassing changed.
  it('moves when a posture response flips whether a service\'s posture query passes', async () => {
    const user = await createPasswordIdentity(c, admin, 'marker-posture', 'marker-posture-password');
    await patch(`/identities/${user.id}`, { roleAttributes: ['mark-posture'] });
    const check = (await post('/posture-checks', { name: 'marker-domain', typeId: 'DOMAIN', domains: ['corp.example'], roleAttributes: ['mark-posture'] })).body.data.id;
    await post('/services', { name: 'marker-guarded', encryptionRequired: true, roleAttributes: ['mark-posture'] });
    await post('/service-policies', {
      name: 'marker-guarded-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#mark-posture'], serviceRoles: ['#mark-posture'], postureCheckRoles: ['#mark-posture'],
    });
    const marker = async () => (await c.http.get('/edge/client/v1/current-api-session/service-updates', { session: user.token, expectStatus: 200 })).body.data.lastChangeAt as string;
    const report = (domain: string) => c.http.post('/edge/client/v1/posture-response', { body: { id: check, typeId: 'DOMAIN', domain }, session: user.token, expectStatus: 201 });
    const settle = () => new Promise((r) => setTimeout(r, 20));

    const failing = await marker();
    await settle();
    await report('corp.example');
    const passing = await marker();
    expect(Date.parse(passing)).toBeGreaterThan(Date.parse(failing));
    await settle();
    await report('other.example');
    expect(Date.parse(await marker())).toBeGreaterThan(Date.parse(passing));
  });
});
