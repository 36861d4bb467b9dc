/**
 * Client API edge routers: those the caller reaches through edge router policies
 * (`/current-identity/edge-routers`), and those it may use for one service, where an edge router
 * policy grants the caller the router and a service edge router policy grants the service the
 * router (`/services/{id}/edge-routers`); the policy service answers both.
 */
import { ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { policyCaller } from '../../shared/caller.js';
import { renderCommonEdgeRouter, renderCurrentIdentityEdgeRouter } from '../../management/routers/map.js';

/** Registers the client edge router routes. */
export function registerClientEdgeRouterRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/current-identity/edge-routers`, 'session', async (req, principal) => {
    const page = await clients.policy.listEdgeRoutersForIdentity({ ...policyCaller(principal), query: listQuery(req) });
    return { body: listBody(page.routers.map(renderCurrentIdentityEdgeRouter), page.meta) };
  });

  // A service the caller may neither dial nor bind does not exist for it (404).
  route('GET', `${base}/services/:id/edge-routers`, 'session', async (req, principal) => {
    const who = policyCaller(principal);
    const access = await clients.policy.getServiceAccess({
      ...who, serviceId: idParam(req.params), grantedOnly: true, edgeRouters: true, edgeRouterQuery: listQuery(req),
    });
    return { body: ok({ edgeRouters: access.edgeRouters.map(renderCommonEdgeRouter) }) };
  });
}
