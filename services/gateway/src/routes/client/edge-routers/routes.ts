/**
 * Client API edge routers: those the caller reaches through edge router policies
 * (`/current-identity/edge-routers`), and those it may use for one service, where an edge router
 * policy grants the caller the router and a service edge router policy grants the service the
 * router (`/services/{id}/edge-routers`, answered by the policy service).
 */
import type { common, policy } from '@edge/proto';
import { ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { allPages, roleSelections } from '../../shared/related.js';
import { policyCaller } from '../../shared/caller.js';
import { renderCommonEdgeRouter, renderCurrentIdentityEdgeRouter } from '../../management/routers/map.js';


/** Registers the client edge router routes. */
export function registerClientEdgeRouterRoutes(route: Router, base: string, clients: Clients): void {
  const routerPoliciesFor = (identity: policy.RoleScope) =>
    allPages(async (query: common.ListQuery) => {
      const p = await clients.policy.listEdgeRouterPolicies({ query, identity });
      return { items: p.edgeRouterPolicies, meta: p.meta };
    });

  route('GET', `${base}/current-identity/edge-routers`, 'session', async (req, principal) => {
    const who = await policyCaller(clients, principal);
    const policies = await routerPoliciesFor({ id: who.identityId, roleAttributes: who.roleAttributes });
    const page = await clients.identity.listRouters({ kind: 'edge', query: listQuery(req), selectedBy: roleSelections(policies, (p: policy.EdgeRouterPolicy__Output) => p.edgeRouterRoles) });
    return { body: listBody(page.routers.map(renderCurrentIdentityEdgeRouter), page.meta) };
  });

  // A service the caller may neither dial nor bind does not exist for it (404).
  route('GET', `${base}/services/:id/edge-routers`, 'session', async (req, principal) => {
    const who = await policyCaller(clients, principal);
    const access = await clients.policy.getServiceAccess({
      ...who, serviceId: idParam(req.params), grantedOnly: true, edgeRouters: true, edgeRouterQuery: listQuery(req),
    });
    return { body: ok({ edgeRouters: access.edgeRouters.map(renderCommonEdgeRouter) }) };
  });
}
