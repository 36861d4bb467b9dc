/**
 * The edge routers of a service access, matched in the read model in the statement that reads
 * the grant and the policies (GetServiceAccess), answer what matching the policies' role lists one by one
 * answers: `#all`, `@id`, `@name`, AllOf and AnyOf attributes, deleted routers left out, the
 * counts of each side.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { identity } from '@edge/proto';
import type { PolicyInput } from '../src/domain/policy.js';
import { createEdgeRouterModel, type EdgeRouterModel } from '../src/store/edge-router-model.js';
import { createPolicyStores, type PolicyStores } from '../src/store/index.js';
import { createHarness, type Harness } from './harness.js';

function router(id: string, roleAttributes: string[], second: number): identity.Router {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
  return {
    id, kind: 'edge', name: `router-${id}`, roleAttributes, tagsJson: '{}', appDataJson: '{}', cost: 0, noTraversal: false, disabled: false,
    isTunnelerEnabled: false, isVerified: false, hostname: '', supportedProtocols: {}, ctrlChanListeners: {}, configs: [], createdAt: at, updatedAt: at,
  };
}

// r5 is deleted once the model is filled.
const ROUTERS = [router('r7', ['a', 'c'], 1), router('r1', ['a', 'b'], 2), router('r2', ['a'], 3), router('r3', ['b'], 4), router('r4', [], 5),
  router('r5', ['a', 'b'], 6), router('r6', ['c'], 7)];

const policy = (name: string, semantic: 'AllOf' | 'AnyOf', roles: PolicyInput['roles']): PolicyInput => ({ name, semantic, roles, tags: {} });

describe('the edge routers of a service access', () => {
  let h: Harness;
  let stores: PolicyStores;
  let model: EdgeRouterModel;

  beforeAll(async () => {
    h = await createHarness({ edgeRouters: ROUTERS });
    stores = createPolicyStores(h.db);
    model = createEdgeRouterModel(h.db);
    await vi.waitFor(async () => expect(await model.isFilled()).toBe(true), { timeout: 20_000, interval: 100 });
    await h.db.updateTable('edge_routers').set({ deleted: true }).where('id', '=', 'r5').execute();
    const erp = stores.edgeRouterPolicies;
    await erp.insert('erp-all', policy('erp-all', 'AllOf', { identityRoles: ['#ops'], edgeRouterRoles: ['#all'] }));
    await erp.insert('erp-allof', policy('erp-allof', 'AllOf', { identityRoles: ['#users'], edgeRouterRoles: ['#a', '#b'] }));
    await erp.insert('erp-anyof', policy('erp-anyof', 'AnyOf', { identityRoles: ['#users'], edgeRouterRoles: ['#c', '#b'] }));
    await erp.insert('erp-named', policy('erp-named', 'AllOf', { identityRoles: ['#named'], edgeRouterRoles: ['@router-r4', '@r6'] }));
    await erp.insert('erp-none', policy('erp-none', 'AllOf', { identityRoles: ['#named'], edgeRouterRoles: [] }));
    const serp = stores.serviceEdgeRouterPolicies;
    await serp.insert('serp-a', policy('serp-a', 'AnyOf', { serviceRoles: ['#all'], edgeRouterRoles: ['#a'] }));
    await serp.insert('serp-b', policy('serp-b', 'AllOf', { serviceRoles: ['#svc-b'], edgeRouterRoles: ['#b', '@r4'] }));
    await serp.insert('serp-all', policy('serp-all', 'AllOf', { serviceRoles: ['@s2'], edgeRouterRoles: ['#all'] }));
    const service = (name: string, roleAttributes: string[]) => ({
      name, encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes, configs: [], tags: {},
    });
    await stores.services.insert('s1', service('s1', ['svc-b']));
    await stores.services.insert('s2', service('s2', []));
  }, 60_000);
  afterAll(() => h?.close());

  /** The edge routers of an access, as GetServiceAccess reads them with the grant. */
  const routersOf = async (roleAttributes: string[], serviceId: string, counts = true) =>
    (await stores.access.read({ identityId: 'i1', roleAttributes }, serviceId, { from: 'model', routers: true, counts }))?.routers;

  /** What matching each side's policies one by one answers (the identity service matches the same way). */
  async function oneByOne(roleAttributes: string[], serviceId: string) {
    const [service] = await stores.services.findMany([serviceId]);
    const sides = await Promise.all([
      stores.edgeRouterPolicies.selecting({ prefix: 'identity', id: 'i1', attributes: roleAttributes }),
      stores.serviceEdgeRouterPolicies.selecting({ prefix: 'service', id: service!.id, attributes: service!.roleAttributes }),
    ]);
    const [identitySide, serviceSide] = sides.map((ps) => ps.map((p) => ({ roles: p.roles.edgeRouterRoles ?? [], semantic: p.semantic })));
    return {
      edgeRouters: await model.selected(identitySide!, serviceSide!),
      identityEdgeRouterCount: await model.countSelected(identitySide!),
      serviceEdgeRouterCount: await model.countSelected(serviceSide!),
    };
  }

  const cases: Array<[string[], string]> = [
    [['users'], 's1'], [['users'], 's2'], [['ops'], 's1'], [['ops'], 's2'], [['named'], 's1'], [['named', 'users'], 's2'], [[], 's1'],
  ];

  it.each(cases)('selects for a caller with %j and service %s what the policies select one by one', async (roleAttributes, serviceId) => {
    expect(await routersOf(roleAttributes, serviceId)).toEqual(await oneByOne(roleAttributes, serviceId));
  });

  it('finds what the spot checks say', async () => {
    const got = (await routersOf(['users'], 's1'))!;
    // users: AllOf #a #b (r1), AnyOf #c #b (r7, r1, r3, r6); s1: AnyOf #a (r7, r1, r2), AllOf #b or @r4 (r1, r3, r4); r5 deleted.
    expect(got.edgeRouters.map((r) => r.id)).toEqual(['r7', 'r1', 'r3']);
    expect([got.identityEdgeRouterCount, got.serviceEdgeRouterCount]).toEqual([4, 5]);
    const named = await routersOf(['named'], 's2', false);
    expect(named).toEqual({ edgeRouters: [expect.objectContaining({ id: 'r4' }), expect.objectContaining({ id: 'r6' })], identityEdgeRouterCount: 0, serviceEdgeRouterCount: 0 });
  });
});
