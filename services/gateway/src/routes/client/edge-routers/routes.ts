/**
 * Client API edge routers: those the caller reaches through edge router policies
 * (`/current-identity/edge-routers`), and those it may use for one service, where an edge router
 * policy grants the caller the router and a service edge router policy grants the service the
 * router (`/services/{id}/edge-routers`).
 */
import type { common, policy } from '@edge/proto';
import { ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Principal } from '../../../http/session-cache.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { allPages, roleSelections } from '../../shared/related.js';
import { renderCommonEdgeRouter, renderCurrentIdentityEdgeRouter } from '../../management/routers/map.js';

/** The caller's identity as policies see it. */
async function caller(clients: Clients, principal: Principal | undefined) {
  const identity = await clients.identity.getIdentity({ id: principal!.apiSession!.identityId });
  return { id: identity.id, roleAttributes: identity.roleAttributes };
}

/** Registers the client edge router routes. */
export function registerClientEdgeRouterRoutes(route: Router, base: string, clients: Clients): void {
  const routerPoliciesFor = (identity: policy.RoleScope) =>
    allPages(async (query: common.ListQuery) => {
      const p = await clients.policy.listEdgeRouterPolicies({ query, identity });
      return { items: p.edgeRouterPolicies, meta: p.meta };
    });

  route('GET', `${base}/current-identity/edge-routers`, 'session', async (req, principal) => {
    const policies = await routerPoliciesFor(await caller(clients, principal));
    const page = await clients.identity.listRouters({ kind: 'edge', query: listQuery(req), selectedBy: roleSelections(policies, (p: policy.EdgeRouterPolicy__Output) => p.edgeRouterRoles) });
    return { body: listBody(page.routers.map(renderCurrentIdentityEdgeRouter), page.meta) };
  });

  route('GET', `${base}/services/:id/edge-routers`, 'session', async (req, principal) => {
    const me = await caller(clients, principal);
    const serviceId = idParam(req.params);
    // A service the caller may neither dial nor bind does not exist for it (404).
    await clients.policy.getServiceForIdentity({ identityId: me.id, roleAttributes: me.roleAttributes, serviceId, configTypes: [] });
    const [routerPolicies, servicePolicies] = await Promise.all([
      routerPoliciesFor(me),
      allPages(async (query: common.ListQuery) => {
        const p = await clients.policy.listServiceEdgeRouterPolicies({ query, serviceId });
        return { items: p.serviceEdgeRouterPolicies, meta: p.meta };
      }),
    ]);
    const page = await clients.identity.listRouters({
      kind: 'edge', query: listQuery(req),
      selectedBy: roleSelections(routerPolicies, (p: policy.EdgeRouterPolicy__Output) => p.edgeRouterRoles),
      alsoSelectedBy: roleSelections(servicePolicies, (p: policy.ServiceEdgeRouterPolicy__Output) => p.edgeRouterRoles),
    });
    return { body: ok({ edgeRouters: page.routers.map(renderCommonEdgeRouter) }) };
  });
}
