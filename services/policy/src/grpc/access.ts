/**
 * Cross-owner reads answered here, once, for every caller:
 * - what an identity may do with one service (session creation, a session's edge routers, the
 *   client's edge routers of a service, policy advice): the grant with its granting policies and
 *   their posture checks, and the edge routers an edge router policy grants the identity and a
 *   service edge router policy grants the service (as OpenZiti's
 *   controller/model/session_manager.go and policy_advisor.go);
 * - every service an identity may use, each as session creation asks for it (one call for an
 *   SDK dialing many services);
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
import { GRANTED_IDS_READ } from '../store/evaluation.js';
import type { HandlerDeps } from './common.js';
import type { RoleSelection } from './identities.js';
import { postureQueryGroups } from './posture-definition.js';

/** The edge router roles of policies, each with its semantic. */
const routerSelections = (policies: readonly Policy[]): RoleSelection[] =>
  policies.map((p) => ({ roles: p.roles.edgeRouterRoles ?? [], semantic: p.semantic }));

const NO_ROUTERS: AccessRouters = { edgeRouters: [], identityEdgeRouterCount: 0, serviceEdgeRouterCount: 0 };

type AccessRequest = pb.GetServiceAccessRequest__Output;

/** The most services GetIdentityAccesses lists (an identity granted more gets `complete` false). */
export const MAX_IDENTITY_ACCESSES = GRANTED_IDS_READ - 1;

/** The index of `key` in `list`, adding `make()` under it when new. */
function indexIn<T>(indexes: Map<string, number>, list: T[], key: string, make: () => T): number {
  let i = indexes.get(key);
  if (i === undefined) {
    i = list.push(make()) - 1;
    indexes.set(key, i);
  }
  return i;
}

/** Accesses with their edge routers, router sets and granting policies each listed once. */
function identityAccesses(accesses: readonly pb.ServiceAccess[]): pb.GetIdentityAccessesResponse {
  const out = { complete: true, edgeRouters: [] as ipb.Router[], routerSets: [] as pb.RouterSet[], policies: [] as pb.PostureQueryGroup[], accesses: [] as pb.IdentityAccess[] };
  const routers = new Map<string, number>();
  const sets = new Map<string, number>();
  const policies = new Map<string, number>();
  for (const a of accesses) {
    const ids = (a.edgeRouters ?? []).map((r) => indexIn(routers, out.edgeRouters, r.id!, () => r));
    out.accesses.push({
      serviceId: a.serviceId, serviceName: a.serviceName, permissions: a.permissions,
      policies: (a.policies ?? []).map((p) => indexIn(policies, out.policies, p.policyId!, () => p)),
      routerSet: indexIn(sets, out.routerSets, ids.join(','), () => ({ routers: ids })),
    });
  }
  return out;
}

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

    async GetIdentityAccesses(req: pb.GetIdentityAccessesRequest__Output): Promise<pb.GetIdentityAccessesResponse> {
      const max = Math.min(req.maxServices || MAX_IDENTITY_ACCESSES, MAX_IDENTITY_ACCESSES);
      const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
      // Read before the answer: a change made while it is read moves the version past it, so the
      // caller's next ask reads it again. None while the edge routers are asked of the identity
      // service (the read model not filled yet): the version does not follow them there.
      const version = await edgeRouters.isFilled() ? String(await reader.version()) : '';
      if (version !== '' && req.knownVersion === version) return { complete: true, unchanged: true, version };
      // The granted services' ids, then each access as GetServiceAccess reads it (from the kept
      // parts): a service granted or revoked in between is answered as the access read finds it.
      const ids = await stores.evaluation.grantedIds(caller);
      if (ids.length > max) return { complete: false, version };
      const answers = await Promise.all(ids.map((serviceId) => access({
        identityId: req.identityId, roleAttributes: req.roleAttributes, serviceId,
        grantedOnly: true, edgeRouters: true, edgeRouterCounts: false, edgeRouterQuery: null,
      })));
      return { ...identityAccesses(answers.filter((a): a is pb.ServiceAccess => a !== undefined)), version };
    },

    async ListEdgeRoutersForIdentity(req: pb.ListEdgeRoutersForIdentityRequest__Output): Promise<ipb.ListRoutersResponse> {
      const policies = await stores.edgeRouterPolicies.selecting({ prefix: 'identity', id: req.identityId, attributes: req.roleAttributes });
      return identities.edgeRoutersPage(routerSelections(policies), req.query);
    },
  };
}
