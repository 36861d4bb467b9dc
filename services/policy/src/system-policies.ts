/**
 * System edge router policies, as OpenZiti keeps them: a tunneler-enabled edge router has an
 * identity of its own (made by the identity service, same id), and this service gives that
 * identity its router through an edge router policy with the router's id, named
 * `edge-router-<id>-system`, `isSystem` true, which the APIs cannot change or delete. Router
 * events only say "look again": the router is read back from the identity service, so redelivery
 * and reordering are harmless; a sweep at start catches up on what happened while no replica ran.
 */
import type { Bus, Subscription } from '@edge/bus';
import { EDGE_ROUTER_CHANGES, type Received, type RouterEvent } from '@edge/events';
import type { Logger } from '@edge/logging';
import type { IdentityServiceClient } from '@edge/proto';
import { orMissing, type RpcClient } from '@edge/rpc';
import { planList } from '@edge/zitiql';
import { EDGE_ROUTER_POLICY } from './domain/policy.js';
import { rolesOf, type PolicyEvents } from './events.js';
import type { PolicyStore } from './store/policy.js';

export const systemPolicyName = (routerId: string) => `edge-router-${routerId}-system`;
const CONSUMER_GROUP = 'policy';
const PAGE = 500;

export function createSystemPolicies(store: PolicyStore, identity: RpcClient<IdentityServiceClient>, events: PolicyEvents, log: Logger) {
  const tunnelerEnabled = async (routerId: string): Promise<boolean> => {
    return (await orMissing(identity.getRouter({ kind: 'edge', id: routerId })))?.isTunnelerEnabled ?? false;
  };

  /** Makes the router's system policy exist exactly when the router is tunneler-enabled. */
  async function reconcile(routerId: string): Promise<void> {
    const wanted = await tunnelerEnabled(routerId);
    const current = await orMissing(store.get(routerId));
    if (wanted && !current) {
      const name = systemPolicyName(routerId);
      await events.write(async (s, announce) => {
        const created = await s.edgeRouterPolicies.insert(routerId, { name, semantic: 'AnyOf', roles: { identityRoles: [`@${routerId}`], edgeRouterRoles: [`@${routerId}`] }, tags: {} }, { isSystem: true });
        await announce(EDGE_ROUTER_POLICY.subject, 'created', { id: routerId, name, after: rolesOf(created) });
      });
      log.info({ routerId }, 'system edge router policy created');
    } else if (!wanted && current?.isSystem) {
      const deleted = await events.write(async (s, announce) => {
        const gone = await s.edgeRouterPolicies.delete(routerId);
        if (gone) await announce(EDGE_ROUTER_POLICY.subject, 'deleted', { id: routerId, name: current.name, before: rolesOf(current) });
        return gone;
      });
      if (deleted) log.info({ routerId }, 'system edge router policy deleted');
    }
  }

  /** Every tunneler-enabled router and every existing system policy, once. */
  async function sweep(): Promise<void> {
    const ids = new Set<string>();
    for (let offset = 0; ; offset += PAGE) {
      const page = await identity.listRouters({ kind: 'edge', query: { limit: PAGE, offset, filter: 'isTunnelerEnabled = true', sort: '', roleFilter: [], roleSemantic: '' } });
      page.routers.forEach((r) => ids.add(r.id));
      if (page.routers.length < PAGE) break;
    }
    for (let offset = 0; ; offset += PAGE) {
      const { items } = await store.list(planList(store.fields, { filter: 'isSystem = true', limit: PAGE, offset }));
      items.forEach((p) => ids.add(p.id));
      if (items.length < PAGE) break;
    }
    for (const id of ids) await reconcile(id);
  }

  return {
    reconcile,
    sweep,
    /** Follows router changes; one replica of the service handles each event. */
    async follow(bus: Bus): Promise<Subscription> {
      return bus.consume<Received<RouterEvent>>(CONSUMER_GROUP, EDGE_ROUTER_CHANGES, async (msg) => {
        if (typeof msg.data?.id === 'string' && msg.data.id !== '') await reconcile(msg.data.id);
      });
    },
  };
}
