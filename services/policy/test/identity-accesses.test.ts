/**
 * GetIdentityAccesses answers every service an identity may use, each as GetServiceAccess answers
 * it with `granted_only` and `edge_routers`, with the edge routers, router sets and granting
 * policies listed once; an identity granted more services than asked for gets `complete` false.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { identity, policy } from '@edge/proto';
import { createEdgeRouterModel } from '../src/store/edge-router-model.js';
import { createHarness, type Harness } from './harness.js';

const noTags = '{}';
const router = (id: string, roleAttributes: string[]): identity.Router => ({
  id, kind: 'edge', name: `router-${id}`, roleAttributes, tagsJson: '{}', appDataJson: '{}', cost: 0, noTraversal: false, disabled: false,
  isTunnelerEnabled: false, isVerified: false, hostname: `${id}.example`, supportedProtocols: { tls: `tls://${id}.example:3022` }, ctrlChanListeners: {},
  configs: [], createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});

let h: Harness;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await createHarness({ edgeRouters: [router('ra', ['east']), router('rb', ['east', 'west']), router('rc', ['west'])] });
  const model = createEdgeRouterModel(h.db);
  await vi.waitFor(async () => expect(await model.isFilled()).toBe(true), { timeout: 20_000, interval: 100 });
  for (const [name, attrs] of [['ia-1', ['ia', 'east']], ['ia-2', ['ia', 'east']], ['ia-3', ['ia', 'west']], ['ia-4', ['other']]] as const) {
    ids[name] = (await h.client.createService({ fields: { name, encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: [...attrs], configs: [], tagsJson: noTags } })).id;
  }
  const check = await h.client.createPostureCheck({
    fields: { name: 'ia-mfa', typeId: 'DOMAIN', roleAttributes: ['ia-check'], tagsJson: noTags, dataJson: '{"domains":["ia.example"]}' },
  });
  expect(check.id).toBeTruthy();
  await h.client.createServicePolicy({ fields: { name: 'ia-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#ia-team'], serviceRoles: ['#ia'], postureCheckRoles: ['#ia-check'], tagsJson: noTags } });
  await h.client.createServicePolicy({ fields: { name: 'ia-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#ia-team'], serviceRoles: [`@${ids['ia-3']}`], postureCheckRoles: [], tagsJson: noTags } });
  await h.client.createEdgeRouterPolicy({ fields: { name: 'ia-erp', semantic: 'AnyOf', identityRoles: ['#ia-team'], edgeRouterRoles: ['#all'], tagsJson: noTags } });
  await h.client.createServiceEdgeRouterPolicy({ fields: { name: 'ia-serp-east', semantic: 'AnyOf', serviceRoles: ['#east'], edgeRouterRoles: ['#east'], tagsJson: noTags } });
  await h.client.createServiceEdgeRouterPolicy({ fields: { name: 'ia-serp-west', semantic: 'AnyOf', serviceRoles: ['#west'], edgeRouterRoles: ['#west'], tagsJson: noTags } });
}, 60_000);
afterAll(() => h?.close());

/** The accesses of a GetIdentityAccesses answer, each with its policies and edge routers in place of their indexes. */
const expand = (res: policy.GetIdentityAccessesResponse__Output) => res.accesses.map((a) => ({
  serviceId: a.serviceId, serviceName: a.serviceName, permissions: a.permissions,
  policies: a.policies.map((i) => res.policies[i]),
  edgeRouters: res.routerSets[a.routerSet]!.routers.map((i) => res.edgeRouters[i]),
}));

describe('GetIdentityAccesses', () => {
  it('answers every granted service as GetServiceAccess does, each router, router set and policy listed once', async () => {
    const caller = { identityId: 'ia-identity', roleAttributes: ['ia-team'] };
    const res = await h.client.getIdentityAccesses({ ...caller, maxServices: 10 });
    expect(res.complete).toBe(true);
    const granted = [ids['ia-1']!, ids['ia-2']!, ids['ia-3']!].sort();
    expect(res.accesses.map((a) => a.serviceId)).toEqual(granted);
    for (const [i, access] of expand(res).entries()) {
      const one = await h.client.getServiceAccess({ ...caller, serviceId: granted[i]!, grantedOnly: true, edgeRouters: true, edgeRouterCounts: false });
      expect(access).toEqual({ serviceId: one.serviceId, serviceName: one.serviceName, permissions: one.permissions, policies: one.policies, edgeRouters: one.edgeRouters });
    }
    // ia-1 and ia-2 share their routers (ra, rb); ia-3 has rb and rc.
    expect(res.edgeRouters.map((r) => r.id).sort()).toEqual(['ra', 'rb', 'rc']);
    expect(res.routerSets).toHaveLength(2);
    expect(res.policies.map((p) => p.policyName).sort()).toEqual(['ia-bind', 'ia-dial']);
    expect(res.policies.find((p) => p.policyName === 'ia-dial')!.checks.map((c) => c.name)).toEqual(['ia-mfa']);
  });

  it('answers complete and empty for an identity granted nothing', async () => {
    const res = await h.client.getIdentityAccesses({ identityId: 'ia-nobody', roleAttributes: ['nothing'], maxServices: 10 });
    expect(res).toMatchObject({ complete: true, accesses: [], edgeRouters: [], policies: [] });
  });

  it('lists nothing, not complete, for an identity granted more services than asked for', async () => {
    const res = await h.client.getIdentityAccesses({ identityId: 'ia-identity', roleAttributes: ['ia-team'], maxServices: 2 });
    expect(res).toMatchObject({ complete: false, accesses: [] });
    expect((await h.client.getIdentityAccesses({ identityId: 'ia-identity', roleAttributes: ['ia-team'], maxServices: 3 })).accesses).toHaveLength(3);
  });

  it('answers unchanged, listing nothing, while the tables stand at the version the caller holds, and anew once they moved', async () => {
    const caller = { identityId: 'ia-identity', roleAttributes: ['ia-team'], maxServices: 10 };
    const first = await h.client.getIdentityAccesses(caller);
    expect(first.version).not.toBe('');
    const again = await h.client.getIdentityAccesses({ ...caller, knownVersion: first.version });
    expect(again).toMatchObject({ complete: true, unchanged: true, version: first.version, accesses: [], edgeRouters: [], policies: [] });
    // A new service granted moves the version: the whole answer again, with it.
    const id = (await h.client.createService({ fields: { name: 'ia-5', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: ['ia'], configs: [], tagsJson: noTags } })).id;
    const moved = await h.client.getIdentityAccesses({ ...caller, knownVersion: first.version });
    expect(moved.unchanged).toBe(false);
    expect(moved.version).not.toBe(first.version);
    expect(moved.accesses.map((a) => a.serviceId)).toContain(id);
    // Another caller's version is no version of this answer's: only a match counts.
    expect((await h.client.getIdentityAccesses({ ...caller, knownVersion: 'something-else' })).accesses).toHaveLength(moved.accesses.length);
  });
});
