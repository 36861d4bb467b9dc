/**
 * An identity created with its enrollments gets them, also when the gateway that created it
 * stops before asking the pki service for them: the identity service records the enrollments
 * asked for in the identity's created event, and the pki service makes any still missing.
 */
import { contracts } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import { describe, expect, it } from 'vitest';
import { useController, type TestController } from '../support/controller.js';

const M = '/edge/management/v1';
let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

const fields = (name: string) => ({
  name, typeId: 'Default', isAdmin: false, roleAttributes: [] as string[], tagsJson: '{}', appDataJson: '{}', defaultHostingCost: 0,
  defaultHostingPrecedence: 'default', serviceHostingCosts: {}, serviceHostingPrecedences: {}, authPolicyId: 'default', permissions: [] as string[],
});

/**
 * What a gateway that stopped right after creating the identity did: the identity service's
 * CreateIdentity with the enrollments asked for, and no call to the pki service.
 */
async function createIdentityOnly(name: string, enrollments: Array<{ method: string; caId?: string; username?: string }>): Promise<string> {
  const identity = createRpcClient(contracts.identity(), `127.0.0.1:${c.running.service('identity').port()}`, { deadlineMs: 10_000 });
  try {
    return (await identity.createIdentity({ fields: fields(name), enrollments })).id;
  } finally {
    identity.close();
  }
}

const detail = async (id: string) => (await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data;
const enrollmentsOf = async (id: string) =>
  (await c.http.get(`${M}/enrollments?filter=${encodeURIComponent(`identity = "${id}"`)}`, { session: admin, expectStatus: 200 })).body.data as Array<{ method: string }>;

describe('identities created with enrollments', () => {
  it('get their enrollment when the gateway stopped between creating the identity and its enrollment', async () => {
    const id = await createIdentityOnly('crashed-before-enrollment', [{ method: 'ott' }]);
    await expect.poll(async () => (await detail(id)).enrollment?.ott?.jwt, { timeout: 15_000 }).toEqual(expect.any(String));
    expect((await enrollmentsOf(id)).map((e) => e.method)).toEqual(['ott']);
  });

  it('show their enrollment JWT at once, and have exactly one of each method once the pki service saw the identity', async () => {
    const r = await c.http.post(`${M}/identities`, {
      body: { name: 'created-with-enrollments', type: 'User', isAdmin: false, enrollment: { ott: true, updb: 'created-with-enrollments' } }, session: admin, expectStatus: 201,
    });
    const id = r.body.data.id as string;
    const d = await detail(id);
    expect(d.enrollment.ott.jwt).toEqual(expect.any(String));
    expect(d.enrollment.updb.jwt).toEqual(expect.any(String));
    // The pki service handles created events in order: once a later identity's enrollment is
    // made from its event, this identity's event was handled too.
    const later = await createIdentityOnly('created-after', [{ method: 'ott' }]);
    await expect.poll(async () => (await enrollmentsOf(later)).length, { timeout: 15_000 }).toBe(1);
    expect((await enrollmentsOf(id)).map((e) => e.method).sort()).toEqual(['ott', 'updb']);
    expect((await detail(id)).enrollment.ott.jwt).toBe(d.enrollment.ott.jwt);
  });
});
