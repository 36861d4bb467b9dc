/**
 * The hot path: the services an identity may dial or bind, with permissions, posture queries
 * and the configs of the requested types.
 */
import { fieldError, notFound } from '@edge/errors';
import { matchRolesCondition } from '@edge/roles';
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { policy as pb } from '@edge/proto';
import { postureQueries, type GrantingPolicy } from '../domain/evaluation.js';
import type { Caller, GrantedService } from '../store/evaluation.js';
import { SERVICE_FIELDS, SERVICE_ROLE_COLUMNS } from '../store/service.js';
import type { HandlerDeps } from './common.js';
import { serviceToProto } from './service.js';

export function createEvaluationHandlers(deps: HandlerDeps) {
  const { stores } = deps;

  /**
   * The identity's own configs (owned by the identity service, sent by the caller) replace the
   * service's config of the same type, for the requested types only.
   */
  const withOverrides = async (
    configs: Map<string, Record<string, unknown>>, overrides: readonly pb.ConfigOverride__Output[], typeIds: Set<string>, serviceIds: Set<string>,
  ) => {
    const relevant = overrides.filter((o) => serviceIds.has(o.serviceId));
    // A config deleted since it was assigned is skipped; any other failure is the caller's error.
    const byId = new Map((await stores.configs.findMany(relevant.map((o) => o.configId))).map((c) => [c.id, c]));
    for (const o of relevant) {
      const config = byId.get(o.configId);
      if (!config || !typeIds.has(config.configTypeId)) continue;
      configs.set(o.serviceId, { ...(configs.get(o.serviceId) ?? {}), [config.configTypeName]: config.data });
    }
    return configs;
  };

  /** The granting policies of a page, each with the posture checks its roles select. */
  const grantingPolicies = async (granted: ReadonlyArray<Pick<GrantedService, 'policyIds'>>): Promise<Map<string, GrantingPolicy>> => {
    const ids = [...new Set(granted.flatMap((g) => g.policyIds))];
    const out = new Map<string, GrantingPolicy>();
    for (const p of await stores.evaluation.policies(ids)) {
      const roles = { all: p.posture_check_all, attrs: p.posture_check_attrs, ids: p.posture_check_ids };
      const empty = !roles.all && roles.attrs.length === 0 && roles.ids.length === 0;
      const checks = empty ? [] : await stores.postureChecks.matching(roles, p.semantic);
      out.set(p.id, { id: p.id, type: p.type as GrantingPolicy['type'], checks });
    }
    return out;
  };

  /** Renders a page of granted services for an identity. */
  const render = async (caller: Caller, granted: GrantedService[], configTypes: readonly string[], overrides: readonly pb.ConfigOverride__Output[] = []): Promise<pb.Service[]> => {
    const types = await stores.configTypes.findByIdOrName(configTypes);
    const ids = granted.map((g) => g.service.id);
    const configs = await withOverrides(await stores.services.configData(ids, types.map((t) => t.id)), overrides, new Set(types.map((t) => t.id)), new Set(ids));
    const policies = await grantingPolicies(granted);
    return granted.map((g) => serviceToProto(g.service, {
      permissions: g.permissions,
      postureQueriesJson: JSON.stringify(postureQueries(g.policyIds.map((id) => policies.get(id)!).filter(Boolean))),
      configJson: JSON.stringify(configs.get(g.service.id) ?? {}),
    }));
  };

  const listServicesForIdentity = async (req: pb.ListServicesForIdentityRequest__Output): Promise<pb.ListServicesResponse> => {
    const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
    const plan = planList(SERVICE_FIELDS, listParams(req.query));
    const policyType = req.policyType === '' ? undefined : policyTypeOf(req.policyType);
    const { items, total } = await stores.evaluation.list(caller, plan, policyType);
    return { services: await render(caller, items, req.configTypes, req.configOverrides), meta: listMeta(plan, total, SERVICE_FIELDS) };
  };

  /**
   * Many identities' grants among the services named for each, with the posture queries of the
   * granting policies (read once for the whole request): sessions are re-evaluated in batches.
   */
  const getServiceGrants = async (req: pb.GetServiceGrantsRequest__Output): Promise<pb.GetServiceGrantsResponse> => {
    const found = await Promise.all(req.queries.map(async (q) => {
      const rows = await stores.evaluation.grantsAmong({ identityId: q.identityId, roleAttributes: q.roleAttributes }, q.serviceIds);
      return rows.map((r) => ({ identityId: q.identityId, serviceId: r.id, permissions: r.permissions, policyIds: r.policy_ids }));
    }));
    const grants = found.flat();
    const policies = await grantingPolicies(grants);
    return {
      grants: grants.map((g) => ({
        identityId: g.identityId, serviceId: g.serviceId, permissions: g.permissions,
        postureQueriesJson: JSON.stringify(postureQueries(g.policyIds.map((id) => policies.get(id)!).filter(Boolean))),
      })),
    };
  };

  return {
    GetServiceGrants: getServiceGrants,
    async MatchServices(req: pb.MatchServicesRequest__Output): Promise<pb.MatchServicesResponse> {
      return { ids: await stores.services.matchIds(matchRolesCondition(req, SERVICE_ROLE_COLUMNS)) };
    },
    // The request names everything the answer depends on that this service does not own.
    ListServicesForIdentity: (req: pb.ListServicesForIdentityRequest__Output): Promise<pb.ListServicesResponse> =>
      deps.serviceLists.through(JSON.stringify(req), () => listServicesForIdentity(req)),
    async GetServiceForIdentity(req: pb.GetServiceForIdentityRequest__Output): Promise<pb.Service> {
      const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
      const granted = await stores.evaluation.get(caller, req.serviceId);
      // A service the identity may not use does not exist for it (OpenZiti answers 404).
      if (!granted) throw notFound('service', req.serviceId);
      return (await render(caller, [granted], req.configTypes, req.configOverrides))[0]!;
    },
  };
}

/** Reads a policy type filter; OpenZiti's lists take it in either case. */
function policyTypeOf(raw: string): 'Dial' | 'Bind' {
  const t = raw.toLowerCase();
  if (t === 'dial') return 'Dial';
  if (t === 'bind') return 'Bind';
  throw fieldError('policyType', 'must be dial or bind', raw);
}
