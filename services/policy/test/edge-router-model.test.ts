/**
 * The edge routers of a service access come from the policy service's read model of edge
 * routers: filled from the identity service's list at start, then kept from router events, with
 * a late older event changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { identity } from '@edge/proto';
import { createHarness, type Harness } from './harness.js';

/** Waits until `cond` holds. */
const waitFor = (cond: () => Promise<boolean>) => vi.waitFor(async () => expect(await cond()).toBe(true), { timeout: 20_000, interval: 50 });

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

function router(id: string, roleAttributes: string[], updatedAt: string): identity.Router {
  return {
    id, kind: 'edge', name: `router-${id}`, roleAttributes, tagsJson: '{}', appDataJson: '{"zone":"a"}', cost: 7, noTraversal: false,
    disabled: false, isTunnelerEnabled: false, isVerified: false, hostname: `${id}.example`, supportedProtocols: { tls: 'tls:x:443' },
    ctrlChanListeners: {}, configs: [], createdAt: at(0), updatedAt,
  };
}

const event = (r: identity.Router, over: Record<string, unknown> = {}) => ({
  id: r.id, kind: 'edge', name: r.name, roleAttributes: r.roleAttributes, disabled: false, isTunnelerEnabled: false, hostname: r.hostname,
  cost: r.cost, noTraversal: false, supportedProtocols: r.supportedProtocols!, appData: JSON.parse(r.appDataJson!),
  createdAt: r.createdAt, updatedAt: r.updatedAt, ...over,
});

describe('edge router read model', () => {
  let h: Harness;
  let serviceId: string;
  const a = router('era', ['edge'], at(1000));
  const b = router('erb', ['edge'], at(1000));
  const access = async () => (await h.client.getServiceAccess({
    identityId: 'caller', roleAttributes: ['users'], serviceId, grantedOnly: false, edgeRouters: true, edgeRouterCounts: true,
  }));

  beforeAll(async () => {
    h = await createHarness({ edgeRouters: [a, b] });
    const noTags = '{}';
    await h.client.createEdgeRouterPolicy({ fields: { name: 'users-edge', semantic: 'AnyOf', identityRoles: ['#users'], edgeRouterRoles: ['#edge'], tagsJson: noTags } });
    await h.client.createServiceEdgeRouterPolicy({ fields: { name: 'svc-edge', semantic: 'AnyOf', serviceRoles: ['#svc'], edgeRouterRoles: ['#edge'], tagsJson: noTags } });
    serviceId = (await h.client.createService({ fields: { name: 'svc', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: ['svc'], configs: [], tagsJson: noTags } })).id;
    await waitFor(async () => (await h.db.selectFrom('edge_router_model_fill').selectAll().execute()).length === 1);
    await h.stopIdentity();
  }, 60_000);
  afterAll(() => h?.close());

  it('answers the edge routers both sides select from the model, the identity service gone', async () => {
    const got = await access();
    expect(got.edgeRouters.map((r) => r.id)).toEqual(['era', 'erb']);
    expect(got.edgeRouters[0]).toMatchObject({ name: 'router-era', hostname: 'era.example', cost: 7, appDataJson: '{"zone":"a"}', supportedProtocols: { tls: 'tls:x:443' } });
    expect([got.identityEdgeRouterCount, got.serviceEdgeRouterCount]).toEqual([2, 2]);
  });

  it('applies router events by version: a late older one changes nothing, a deletion removes the router', async () => {
    await h.bus.publish('edge.identity.edge-router.updated', event(a, { roleAttributes: ['other'], updatedAt: at(3000) }));
    await waitFor(async () => (await access()).edgeRouters.length === 1);
    // Older than what the model holds: ignored, even though it would select the router again.
    await h.bus.publish('edge.identity.edge-router.updated', event(a, { roleAttributes: ['edge'], updatedAt: at(2000) }));
    await h.bus.publish('edge.identity.edge-router.deleted', event(b, { updatedAt: at(4000) }));
    await waitFor(async () => (await access()).edgeRouters.length === 0);
    const rows = await h.db.selectFrom('edge_routers').select(['id', 'role_attributes', 'deleted']).orderBy('id').execute();
    expect(rows).toEqual([{ id: 'era', role_attributes: ['other'], deleted: false }, { id: 'erb', role_attributes: ['edge'], deleted: true }]);
    // And a creation older than the deletion does not bring the router back.
    await h.bus.publish('edge.identity.edge-router.created', event(b, { updatedAt: at(1500) }));
    await h.bus.publish('edge.identity.edge-router.updated', event(a, { roleAttributes: ['edge'], updatedAt: at(5000) }));
    await waitFor(async () => (await access()).edgeRouters.length === 1);
    expect((await access()).edgeRouters.map((r) => r.id)).toEqual(['era']);
  });
});
