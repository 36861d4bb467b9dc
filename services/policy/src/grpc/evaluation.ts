/**
 * The hot path: the services an identity may dial or bind, with permissions, posture queries
 * and the configs of the requested types; the digest of the whole list (service updates).
 */
import { createHash } from 'node:crypto';
import { fieldError, notFound } from '@edge/errors';
import { matchRolesCondition } from '@edge/roles';
import { createBatcher } from '@edge/rpc';
import { listMeta, listParams, MAX_LIMIT, planList } from '@edge/zitiql';
import type { policy as pb } from '@edge/proto';
import type { GrantingPolicy } from '../domain/evaluation.js';
import type { Caller, GrantedService } from '../store/evaluation.js';
import { SERVICE_FIELDS, SERVICE_ROLE_COLUMNS } from '../store/service.js';
import type { HandlerDeps } from './common.js';
import type { OwnConfig } from './identities.js';
import { postureQueryGroups } from './posture-definition.js';
import { serviceToProto } from './service.js';

/** Every config type, as `configTypes=all` names them. */
const ALL_CONFIG_TYPES = ['all'];

/**
 * Identities' grants evaluated in SQL at once, at most, across every GetServiceGrants call (those
 * the kept parts could not answer). The calls come from the session service's re-evaluations and
 * reconciliations, hundreds of identities at a time: read all at once, they took every connection
 * of the pool, and the session creations and service lists waiting behind them stopped for as long.
 */
const GRANT_READS_AT_ONCE = 2;

export function createEvaluationHandlers(deps: HandlerDeps) {
  const { stores } = deps;
  const grantsOf = createBatcher((callers: Array<Caller & { serviceIds: string[] }>) => {
    const { serviceIds, ...caller } = callers[0]!;
    return stores.evaluation.grantsAmong(caller, serviceIds).then((rows) => [rows]);
  }, { maxBatch: 1, maxInFlight: GRANT_READS_AT_ONCE });

  /**
   * The identity's own configs for services, read from the identity service (their owner) by
   * this service rather than sent by each caller, so a client's service list costs the gateway
   * one call. They are asked for on every evaluation that renders configs (never when no
   * config type is asked for), and the answer is part of the cache key, so a change shows at
   * once without this service following the identity service's events.
   */
  const ownConfigs = (identityId: string, configTypes: readonly string[]): Promise<OwnConfig[]> =>
    (configTypes.length === 0 ? Promise.resolve([]) : deps.identities.ownConfigs(identityId));

  /** The identity's own configs replace the service's config of the same type, for the requested types only. */
  const withOverrides = async (configs: Map<string, Record<string, unknown>>, overrides: readonly OwnConfig[], typeIds: Set<string>, serviceIds: Set<string>) => {
    const relevant = overrides.filter((o) => serviceIds.has(o.serviceId));
    if (relevant.length === 0) return configs;
    // A config deleted since it was assigned is skipped.
    const byId = new Map((await stores.configs.findMany(relevant.map((o) => o.configId))).map((c) => [c.id, c]));
    for (const o of relevant) {
      const config = byId.get(o.configId);
      if (!config || !typeIds.has(config.configTypeId)) continue;
      configs.set(o.serviceId, { ...(configs.get(o.serviceId) ?? {}), [config.configTypeName]: config.data });
    }
    return configs;
  };

  /** The granting policies of a page with their posture checks, read in one statement. */
  const grantingPolicies = async (granted: ReadonlyArray<Pick<GrantedService, 'policyIds'>>): Promise<Map<string, GrantingPolicy>> => {
    const rows = await stores.evaluation.grantingPolicies([...new Set(granted.flatMap((g) => g.policyIds))]);
    return new Map(rows.map((p) => [p.id, p]));
  };
  const groupsOf = (policies: Map<string, GrantingPolicy>, ids: readonly string[]) =>
    postureQueryGroups(ids.map((id) => policies.get(id)!).filter(Boolean));

  /** Renders a page of granted services for an identity. */
  const render = async (granted: GrantedService[], configTypes: readonly string[], overrides: readonly OwnConfig[]): Promise<pb.Service[]> => {
    if (granted.length === 0) return [];
    const ids = granted.map((g) => g.service.id);
    const [types, policies] = await Promise.all([
      configTypes.length ? stores.configTypes.findByIdOrName(configTypes) : Promise.resolve([]),
      grantingPolicies(granted),
    ]);
    const typeIds = types.map((t) => t.id);
    const data = typeIds.length ? await stores.services.configData(ids, typeIds) : new Map<string, Record<string, unknown>>();
    const configs = await withOverrides(data, overrides, new Set(typeIds), new Set(ids));
    return granted.map((g) => serviceToProto(g.service, {
      permissions: g.permissions,
      postureQueries: groupsOf(policies, g.policyIds),
      configJson: JSON.stringify(configs.get(g.service.id) ?? {}),
    }));
  };

  const list = async (req: pb.ListServicesForIdentityRequest__Output, overrides: readonly OwnConfig[]): Promise<pb.ListServicesResponse> => {
    const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
    const plan = planList(SERVICE_FIELDS, listParams(req.query));
    const policyType = req.policyType === '' ? undefined : policyTypeOf(req.policyType);
    const { items, total } = await stores.evaluation.list(caller, plan, policyType);
    return { services: await render(items, req.configTypes, overrides), meta: listMeta(plan, total, SERVICE_FIELDS) };
  };

  /** Every service the caller may use, in id order, as the list renders them. */
  const everyService = async (caller: Caller, configTypes: readonly string[], overrides: readonly OwnConfig[]): Promise<pb.Service[]> => {
    const out: pb.Service[] = [];
    for (let offset = 0; ; offset += MAX_LIMIT) {
      const plan = planList(SERVICE_FIELDS, { limit: MAX_LIMIT, offset, sort: 'id' });
      const { items, total } = await stores.evaluation.list(caller, plan);
      out.push(...await render(items, configTypes, overrides));
      if (items.length === 0 || out.length >= total) return out;
    }
  };

  /** The key of a caller's digest; the digest read from every service the caller may use. */
  const digestKey = (caller: Caller, overrides: readonly OwnConfig[]) => JSON.stringify([caller.identityId, caller.roleAttributes, overrides]);
  const everyDigest = async (caller: Caller, overrides: readonly OwnConfig[]) =>
    digestOfServices(await everyService({ identityId: caller.identityId, roleAttributes: caller.roleAttributes }, ALL_CONFIG_TYPES, overrides));

  /**
   * The digest of everything the caller's list shows (the seconds left of a posture timeout
   * aside), and the posture checks it names, so the session service adds whether each passes.
   * Configs of every type count, whatever types the API session named: clients such as the C
   * SDK log in naming none and ask for them with each list (`configTypes=all`), and OpenZiti
   * moves the marker of everyone who sees a service when one of its configs changes.
   */
  const digestOf = (caller: Caller, overrides: readonly OwnConfig[]): Promise<pb.ServiceListDigest> =>
    deps.serviceDigests.through(digestKey(caller, overrides), () => everyDigest(caller, overrides));

  /**
   * A page with the digest of the caller's whole list, the digest read first (the page is then
   * never older than it). A page that holds every service the caller may use (no filter, no
   * type, from the first) is read once for both: it is rendered with the configs of every type,
   * as the digest counts them, and sent with those the caller asked for. Each is kept in its
   * own cache, under the tables' version read before it was read.
   */
  const listWithDigest = async (req: pb.ListServicesForIdentityRequest__Output, every: readonly OwnConfig[]): Promise<pb.ListServicesResponse> => {
    const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
    let whole: pb.ListServicesResponse | undefined;
    const digest = await deps.serviceDigests.through(digestKey(caller, every), async () => {
      whole = await wholeList(req, every);
      return whole?.digest ?? everyDigest(caller, every);
    });
    return whole ?? { ...await list(req, req.configTypes.length === 0 ? [] : every), digest };
  };

  /** The page of `req` with its digest, when it holds every service the caller may use. */
  const wholeList = async (req: pb.ListServicesForIdentityRequest__Output, every: readonly OwnConfig[]): Promise<pb.ListServicesResponse | undefined> => {
    const plan = planList(SERVICE_FIELDS, listParams(req.query));
    if (plan.where !== undefined || plan.offset !== 0 || req.policyType !== '') return undefined;
    const { items, total } = await stores.evaluation.list({ identityId: req.identityId, roleAttributes: req.roleAttributes }, plan);
    if (items.length < total) return undefined;
    const [services, names] = await Promise.all([render(items, ALL_CONFIG_TYPES, every), configTypeNames(req.configTypes)]);
    return {
      services: services.map((s) => ({ ...s, configJson: onlyTypes(s.configJson!, names) })),
      meta: listMeta(plan, total, SERVICE_FIELDS),
      digest: digestOfServices(services),
    };
  };

  /** The names of the config types asked for (`all` for every one). */
  const configTypeNames = async (asked: readonly string[]): Promise<Set<string> | 'all'> => {
    if (asked.includes('all')) return 'all';
    return new Set(asked.length === 0 ? [] : (await stores.configTypes.findByIdOrName(asked)).map((t) => t.name));
  };

  /**
   * One query's grants from the parts the access reader keeps under the access version, as a
   * session creation reads its access: as fresh as a statement (the version is read after the
   * call arrived, and a part older than it is read again), without evaluating the identity's
   * policies again for each page of sessions. Undefined when the tables kept changing under the
   * read.
   */
  const keptGrants = async (q: pb.ServiceGrantQuery__Output): Promise<pb.ServiceGrant[] | undefined> => {
    const caller = { identityId: q.identityId, roleAttributes: q.roleAttributes };
    const reads = await Promise.all([...new Set(q.serviceIds)].map((serviceId) => deps.accessReader.read(caller, serviceId)));
    if (reads.some((r) => r === null)) return undefined;
    return reads.flatMap((r) => (r && r.grant.permissions.length > 0
      ? [{ identityId: q.identityId, serviceId: r.grant.service.id, permissions: r.grant.permissions, postureQueries: postureQueryGroups(r.grant.policies) }]
      : []));
  };

  /**
   * Many identities' grants among the services named for each, with the posture queries of the
   * granting policies: sessions are re-evaluated in batches (after a change, and page by page
   * every interval).
   */
  const getServiceGrants = async (req: pb.GetServiceGrantsRequest__Output): Promise<pb.GetServiceGrantsResponse> => {
    const answered = await Promise.all(req.queries.map((q) => keptGrants(q)));
    // The queries whose parts kept changing under the read are evaluated in one statement each.
    const found = await Promise.all(req.queries.map(async (q, i) => {
      if (answered[i] !== undefined) return [];
      const rows = await grantsOf({ identityId: q.identityId, roleAttributes: q.roleAttributes, serviceIds: q.serviceIds });
      return rows.map((r) => ({ identityId: q.identityId, serviceId: r.id, permissions: r.permissions, policyIds: r.policy_ids }));
    }));
    const grants = found.flat();
    const policies = await grantingPolicies(grants);
    return {
      grants: [
        ...answered.flatMap((a) => a ?? []),
        ...grants.map((g) => ({ identityId: g.identityId, serviceId: g.serviceId, permissions: g.permissions, postureQueries: groupsOf(policies, g.policyIds) })),
      ],
    };
  };

  return {
    GetServiceGrants: getServiceGrants,
    async MatchServices(req: pb.MatchServicesRequest__Output): Promise<pb.MatchServicesResponse> {
      return { ids: await stores.services.matchIds(matchRolesCondition(req, SERVICE_ROLE_COLUMNS)) };
    },
    // The cache key names everything the answer depends on that this service does not own. With
    // the digest, the identity's own configs are read once for both (the digest covers every
    // type), and the page is kept with its digest.
    async ListServicesForIdentity(req: pb.ListServicesForIdentityRequest__Output): Promise<pb.ListServicesResponse> {
      const { withDigest, ...asked } = req;
      if (!withDigest) {
        const overrides = await ownConfigs(req.identityId, req.configTypes);
        return deps.serviceLists.through(JSON.stringify([asked, overrides]), () => list(req, overrides));
      }
      const every = await ownConfigs(req.identityId, ALL_CONFIG_TYPES);
      return deps.serviceLists.through(JSON.stringify([asked, every, 'digest']), () => listWithDigest(req, every));
    },
    async GetServiceForIdentity(req: pb.GetServiceForIdentityRequest__Output): Promise<pb.Service> {
      const caller = { identityId: req.identityId, roleAttributes: req.roleAttributes };
      const [granted, overrides] = await Promise.all([stores.evaluation.get(caller, req.serviceId), ownConfigs(req.identityId, req.configTypes)]);
      // A service the identity may not use does not exist for it (OpenZiti answers 404).
      if (!granted) throw notFound('service', req.serviceId);
      return (await render([granted], req.configTypes, overrides))[0]!;
    },
    /** The digest of the caller's list (see digestOf). */
    async GetServiceListDigest(req: pb.GetServiceListDigestRequest__Output): Promise<pb.ServiceListDigest> {
      return digestOf(req, await ownConfigs(req.identityId, ALL_CONFIG_TYPES));
    },
  };
}

/**
 * The digest of a caller's services rendered with every config type, and the posture checks they
 * name. The services are taken in id order by code point, whatever order they were read in, so
 * a list read in any order and any collation gives the same digest.
 */
function digestOfServices(services: readonly pb.Service[]): pb.ServiceListDigest {
  const byId = [...services].sort((a, b) => (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0));
  const checks = new Map(byId.flatMap((s) => (s.postureQueries ?? []).flatMap((g) => g.checks ?? [])).map((c) => [c.id!, c]));
  return {
    digest: createHash('sha256').update(JSON.stringify(byId)).digest('hex'),
    postureChecks: [...checks.values()].sort((a, b) => (a.id! < b.id! ? -1 : 1)),
  };
}

/** A service's configs (JSON, every type) reduced to the types named. */
function onlyTypes(configJson: string, names: Set<string> | 'all'): string {
  if (names === 'all') return configJson;
  if (names.size === 0 || configJson === '{}') return '{}';
  return JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(configJson) as Record<string, unknown>).filter(([type]) => names.has(type))));
}

/** Reads a policy type filter; OpenZiti's lists take it in either case. */
function policyTypeOf(raw: string): 'Dial' | 'Bind' {
  const t = raw.toLowerCase();
  if (t === 'dial') return 'Dial';
  if (t === 'bind') return 'Bind';
  throw fieldError('policyType', 'must be dial or bind', raw);
}
