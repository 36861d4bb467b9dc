/**
 * Cross-owner reads answered here, once, for every caller:
 * - what an identity may do with one service (session creation, a session's edge routers, the
 *   client's edge routers of a service, policy advice): the grant with its granting policies and
 *   their posture checks, and the edge routers an edge router policy grants the identity and a
 *   service edge router policy grants the service (as OpenZiti's
 *   controller/model/session_manager.go and policy_advisor.go);
 * - the edge routers an identity's edge router policies grant it.
 * The edge routers the selections match come from this service's read model of edge routers
 * (edge-router-model.ts), matched in the statement that reads the grant and the policies; a paged
 * or filtered list of them is asked of the identity service, their owner.
 */
import { notFound } from '@edge/errors';
import type { identity as ipb, policy as pb } from '@edge/proto';
import { assertBatchSize } from '@edge/rpc';
import type { Policy } from '../domain/policy.js';
import type { AccessRouterSelections, RoutersWanted } from '../store/access.js';
import type { AccessRouters } from '../store/edge-router-model.js';
import type { HandlerDeps } from './common.js';
import type { RoleSelection } from './identities.js';
import { postureQueryGroups } from './posture-definition.js';

/** The edge router roles of policies, each with its semantic. */
const routerSelections = (policies: readonly Policy[]): RoleSelection[] =>
  policies.map((p) => ({ roles: p.roles.edgeRouterRoles ?? [], semantic: p.semantic }));

const NO_ROUTERS: AccessRouters = { edgeRouters: [], identityEdgeRouterCount: 0, serviceEdgeRouterCount: 0 };

type AccessRequest = pb.GetServiceAccessRequest__Output;

export function createAccessHandlers({ stores, identities, edgeRouters, accessReader: reader }: HandlerDeps) {
  /**
   * How the edge routers of an access are read with its grant: not at all when none are asked
   * for; matched in the read model when it can answer (it is filled, and no page of them is asked
   * for); else as the policies' edge router roles, for the identity service to match.
   */
  async function routersWanted(req: AccessRequest): Promise<RoutersWanted | undefined> {
    if (!req.edgeRouters && !req.edgeRouterCounts) return undefined;
    if ((!req.edgeRouters || !req.edgeRouterQuery) && await edgeRouters.isFilled()) {
      return { from: 'model', routers: req.edgeRouters, counts: req.edgeRouterCounts };
    }
    return { from: 'directory' };
  }

  /** The edge routers (and counts) the policies' edge router roles select, asked of the directory. */
  async function routersOf({ identitySide, serviceSide }: AccessRouterSelections, req: AccessRequest): Promise<AccessRouters> {
    const [routers, identityCount, serviceCount] = await Promise.all([
      req.edgeRouters ? identities.edgeRoutersSelected(identitySide, serviceSide, req.edgeRouterQuery ?? undefined) : [],
      req.edgeRouterCounts ? identities.countEdgeRoutersSelected(identitySide) : 0,
      req.edgeRouterCounts ? identities.countEdgeRoutersSelected(serviceSide) : 0,
    ]);
    return { edgeRouters: routers, identityEdgeRouterCount: identityCount, serviceEdgeRouterCount: serviceCount };
  }

  /** The access one request asks for; undefined where GetServiceAccess answers NOT_FOUND. */
  async function access(req: AccessRequest): Promise<pb.ServiceAccess | undefined> {
    const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
    const wanted = await routersWanted(req);
    // From the kept parts when the edge routers (if any) come from the read model; in one
    // statement otherwise, or when the tables kept changing under the parts.
    let read = wanted?.from === 'directory' ? null : await reader.read(caller, req.serviceId, wanted, req.grantedOnly);
    if (read === null) read = await stores.access.read(caller, req.serviceId, wanted);
    if (!read || (req.grantedOnly && read.grant.permissions.length === 0)) return undefined;
    const { grant, selections } = read;
    const routers = selections ? await routersOf(selections, req) : read.routers ?? NO_ROUTERS;
    return {
      serviceId: grant.service.id, serviceName: grant.service.name, permissions: grant.permissions,
      policies: postureQueryGroups(grant.policies), ...routers,
    };
  }

  return {
    async GetServiceAccess(req: AccessRequest): Promise<pb.ServiceAccess> {
      const answer = await access(req);
      if (!answer) throw notFound('service', req.serviceId);
      return answer;
    },

    async GetServiceAccesses(req: pb.GetServiceAccessesRequest__Output): Promise<pb.GetServiceAccessesResponse> {
      assertBatchSize(req.requests, 'requests');
      const answers = await Promise.all(req.requests.map(access));
      return { results: answers.map((a) => (a ? { access: a } : { notFound: true })) };
    },

    async ListEdgeRoutersForIdentity(req: pb.ListEdgeRoutersForIdentityRequest__Output): Promise<ipb.ListRoutersResponse> {
      const policies = await stores.edgeRouterPolicies.selecting({ prefix: 'identity', id: req.identityId, attributes: req.roleAttributes });
      return identities.edgeRoutersPage(routerSelections(policies), req.query);
    },
  };
}
