/**
 * Policy events leave through the outbox, recorded with their change, and say what changed so
 * that consumers re-evaluate only what it may affect.
 */
import type { BusMessage } from '@edge/bus';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
const got: BusMessage<Record<string, unknown>>[] = [];
beforeAll(async () => {
  h = await createHarness();
  await h.bus.consume<Record<string, unknown>>('test', 'edge.policy.>', async (m) => { got.push(m); });
});
afterAll(async () => h?.close());

const policyFields = (name: string, identityRoles: string[], serviceRoles: string[], postureCheckRoles: string[] = []) =>
  ({ name, type: 'Dial', semantic: 'AnyOf', identityRoles, serviceRoles, postureCheckRoles, tagsJson: '{}' });
const eventsOf = (subject: string, id: string) => got.filter((m) => m.subject === subject && m.data.id === id);
const outboxRows = async () => (await h.db.selectFrom('outbox').select('id').execute()).length;

describe('policy events', () => {
  it('announce a service policy with its roles before and after each change, each event with its own id', async () => {
    const { id } = await h.client.createServicePolicy({ fields: policyFields('ev-sp', ['#team-a'], ['#svc-a']) });
    await h.client.updateServicePolicy({ id, fields: policyFields('ev-sp', ['#team-b'], ['#svc-a']), updateMask: ['identityRoles'] });
    await h.client.deleteServicePolicy({ id });
    await vi.waitFor(() => expect(eventsOf('edge.policy.service-policy.deleted', id)).toHaveLength(1));
    const [created] = eventsOf('edge.policy.service-policy.created', id);
    const [updated] = eventsOf('edge.policy.service-policy.updated', id);
    const [deleted] = eventsOf('edge.policy.service-policy.deleted', id);
    const roles = (team: string) => ({ semantic: 'AnyOf', type: 'Dial', identityRoles: [team], serviceRoles: ['#svc-a'], postureCheckRoles: [] });
    expect(created!.data).toEqual({ id, name: 'ev-sp', after: roles('#team-a') });
    expect(updated!.data).toEqual({ id, name: 'ev-sp', before: roles('#team-a'), after: roles('#team-b') });
    expect(deleted!.data).toEqual({ id, name: 'ev-sp', before: roles('#team-b') });
    expect(new Set([created!.eventId, updated!.eventId, deleted!.eventId]).size).toBe(3);
    await vi.waitFor(async () => expect(await outboxRows()).toBe(0));
  });

  it('announce a posture check change with the service policies its attributes select, before and after', async () => {
    await h.client.createServicePolicy({ fields: policyFields('ev-old', ['#old-team'], ['#old-svc'], ['#old-check']) });
    await h.client.createServicePolicy({ fields: policyFields('ev-new', ['#new-team'], ['#new-svc'], ['#new-check']) });
    await h.client.createServicePolicy({ fields: policyFields('ev-unrelated', ['#x'], ['#y'], ['#z']) });
    const { id } = await h.client.createPostureCheck({ fields: { name: 'ev-check', typeId: 'DOMAIN', roleAttributes: ['old-check'], dataJson: '{"domains":["a.example"]}', tagsJson: '{}' } });
    await h.client.updatePostureCheck({ id, fields: { name: 'ev-check', typeId: 'DOMAIN', roleAttributes: ['new-check'], dataJson: '{"domains":["a.example"]}', tagsJson: '{}' }, updateMask: ['roleAttributes'] });
    await vi.waitFor(() => expect(eventsOf('edge.policy.posture-check.updated', id)).toHaveLength(1));
    const { data } = eventsOf('edge.policy.posture-check.updated', id)[0]!;
    expect(data.roleAttributes).toEqual({ before: ['old-check'], after: ['new-check'] });
    expect((data.servicePolicies as Array<{ identityRoles: string[] }>).map((p) => p.identityRoles).sort()).toEqual([['#new-team'], ['#old-team']]);
  });

  it('record nothing for a write that failed', async () => {
    await h.client.createService({ fields: { name: 'ev-twice', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: [], configs: [], tagsJson: '{}' } });
    await vi.waitFor(async () => expect(await outboxRows()).toBe(0));
    const before = got.length;
    await expect(h.client.createService({ fields: { name: 'ev-twice', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: [], configs: [], tagsJson: '{}' } }))
      .rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE' });
    expect(await outboxRows()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(got.length).toBe(before);
  });
});
