/**
 * Cross-owner reads answered here, once, for every caller:
 * - what an identity may do with one service (session creation, a session's edge routers, the
 *   client's edge routers of a service, policy advice): the grant with its granting policies and
 *   their posture checks, and the edge routers an edge router policy grants the identity and a
 *   service edge router policy grants the service (as OpenZiti's
 *   controller/model/session_manager.go and policy_advisor.go);
 * - the edge routers an identity's edge router policies grant it.
 * The edge routers the selections match come from this service's read model of edge routers
 * (edge-router-model.ts); a paged or filtered list of them is asked of the identity service, their owner.
 */
import { notFound } from '@edge/errors';
import type { identity as ipb, policy as pb } from '@edge/proto';
import type { Policy } from '../domain/policy.js';
import type { HandlerDeps } from './common.js';
import type { RoleSelection } from './identities.js';
import { postureQueryGroups } from './posture-definition.js';

/** The edge router roles of policies, each with its semantic. */
const routerSelections = (policies: readonly Policy[]): RoleSelection[] =>
  policies.map((p) => ({ roles: p.roles.edgeRouterRoles ?? [], semantic: p.semantic }));

export function createAccessHandlers({ stores, identities }: HandlerDeps) {
  return {
    async GetServiceAccess(req: pb.GetServiceAccessRequest__Output): Promise<pb.ServiceAccess> {
      const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
      const [[service], [grant]] = await Promise.all([
        stores.services.findMany([req.serviceId]),
        stores.evaluation.grantsAmong(caller, [req.serviceId]),
      ]);
      if (!service || (req.grantedOnly && !grant)) throw notFound('service', req.serviceId);
      const wantRouters = req.edgeRouters || req.edgeRouterCounts;
      const [policies, byIdentity, byService] = await Promise.all([
        stores.evaluation.grantingPolicies(grant?.policy_ids ?? []),
        wantRouters ? stores.edgeRouterPolicies.selecting({ prefix: 'identity', id: caller.identityId, attributes: caller.roleAttributes }) : [],
        wantRouters ? stores.serviceEdgeRouterPolicies.selecting({ prefix: 'service', id: service.id, attributes: service.roleAttributes }) : [],
      ]);
      const [identitySide, serviceSide] = [routerSelections(byIdentity), routerSelections(byService)];
      const [edgeRouters, identityCount, serviceCount] = await Promise.all([
        req.edgeRouters ? identities.edgeRoutersSelected(identitySide, serviceSide, req.edgeRouterQuery ?? undefined) : [],
        req.edgeRouterCounts ? identities.countEdgeRoutersSelected(identitySide) : 0,
        req.edgeRouterCounts ? identities.countEdgeRoutersSelected(serviceSide) : 0,
      ]);
      return {
        serviceId: service.id, serviceName: service.name, permissions: grant?.permissions ?? [],
        policies: postureQueryGroups(policies), edgeRouters,
        identityEdgeRouterCount: identityCount, serviceEdgeRouterCount: serviceCount,
      };
    },

    async ListEdgeRoutersForIdentity(req: pb.ListEdgeRoutersForIdentityRequest__Output): Promise<ipb.ListRoutersResponse> {
      const policies = await stores.edgeRouterPolicies.selecting({ prefix: 'identity', id: req.identityId, attributes: req.roleAttributes });
      return identities.edgeRoutersPage(routerSelections(policies), req.query);
    },
  };
}
