/**
 * What sessions need from the policy service: service grants, posture checks, the services a
 * role list selects, and the edge routers a service may use. ARCHITECTURE.md rule 1: asked over
 * gRPC, never read from its schema.
 */
import { createHeldAnswers, unheardChanges, type HeardChanges } from '@edge/bus';
import type { PolicyServiceClient, common, identity as ipb, policy as policyPb } from '@edge/proto';
import { allPages, contextOfMany, createBatcher, currentContext, isUnimplemented, orMissing, orOneByOne, runWithContext, type RequestContext, type RpcClient } from '@edge/rpc';
import type { GrantingPolicy, PostureCheckDef } from '../domain/posture.js';
import { checksOf, grantingPolicies } from '../posture-definition.js';
import { everything, idIn, PAGE, type RoleSelection } from './common.js';
import type { PeerIdentity } from './identity.js';

/** A service as granted to one identity. */
export interface GrantedService {
  id: string;
  name: string;
  permissions: string[];
  policies: GrantingPolicy[];
}

/** An identity's grant of a service, with the posture checks of the granting policies by id. */
export interface Grant {
  permissions: string[];
  policies: GrantingPolicy[];
  checks: Map<string, PostureCheckDef>;
}

/** What an identity may do with a service: the grant, the posture checks of its policies, edge routers. */
export interface ServiceAccess extends GrantedService {
  checks: Map<string, PostureCheckDef>;
  edgeRouters: EdgeRouterView[];
}

/** An edge router a session may use. */
export interface EdgeRouterView {
  id: string;
  name: string;
  hostname: string;
  cost: number;
  isOnline: boolean;
  noTraversal: boolean;
  disabled: boolean;
  /** Protocol → address. */
  supportedProtocols: Record<string, string>;
  appDataJson: string;
}

/** The ids among `ids` a list names when asked for them by id, in one call per 500. */
async function existingAmong(ids: readonly string[], list: (q: common.ListQuery) => Promise<Array<{ id: string }>>): Promise<Set<string>> {
  const out = new Set<string>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += PAGE) {
    const chunk = unique.slice(i, i + PAGE);
    for (const x of await list({ ...everything(0), limit: chunk.length, filter: idIn(chunk) })) out.add(x.id);
  }
  return out;
}

/** The key of an (identity, service) pair in what `grants` answers. */
export const grantKey = (identityId: string, serviceId: string) => `${identityId}\0${serviceId}`;

/**
 * Accesses held at most: a few thousand callers dialing tens of services each. The edge routers
 * of held accesses are shared objects (see {@link createRouterInterning}), so an access held
 * takes under a kilobyte whatever its routers.
 */
export const MAX_HELD_ACCESSES = 50_000;

/**
 * Identities whose every access is held at most, and the most services an identity may use for
 * them to be held so (one granted more is asked one service at a time).
 */
export const MAX_HELD_IDENTITIES = 1_000;
export const MAX_SERVICES_HELD_PER_IDENTITY = 200;

/** Every access of an identity, and the policy service's version of the tables it was read at ('' none). */
interface EveryAccess {
  version: string;
  accesses: Map<string, ServiceAccess>;
}

/** Identities remembered as having dialed a service lately, at most. */
const MAX_DIALERS = 20_000;

/** Whether two views of an edge router say the same. */
function sameRouter(a: EdgeRouterView, b: EdgeRouterView): boolean {
  if (a.id !== b.id || a.name !== b.name || a.hostname !== b.hostname || a.cost !== b.cost || a.noTraversal !== b.noTraversal
    || a.disabled !== b.disabled || a.appDataJson !== b.appDataJson) return false;
  const pa = Object.keys(a.supportedProtocols);
  return pa.length === Object.keys(b.supportedProtocols).length && pa.every((k) => a.supportedProtocols[k] === b.supportedProtocols[k]);
}

/**
 * One object per edge router as long as it says the same, forgotten when a change is heard: the
 * accesses of thousands of (identity, service) pairs name the same few routers.
 */
function createRouterInterning(changes: HeardChanges) {
  const known = new Map<string, EdgeRouterView>();
  let generation = changes.generation;
  return (r: EdgeRouterView): EdgeRouterView => {
    if (generation !== changes.generation) {
      known.clear();
      generation = changes.generation;
    }
    const seen = known.get(r.id);
    if (seen && sameRouter(seen, r)) return seen;
    known.set(r.id, r);
    return r;
  };
}

/**
 * The policy service's answers, over its client. With `changes` (what this service hears of
 * changes to services, policies, posture checks and edge routers), an access answered is held
 * on @edge/bus's terms (held.ts), under the identity, its role attributes, the service and what
 * was asked: a caller dialing a service again is answered without a call. Without, every access
 * is asked for.
 */
export function createPolicyPeer(policy: RpcClient<PolicyServiceClient>, changes: HeardChanges = unheardChanges()) {
  // Accesses asked together (session creations arriving at once) share one call; the call acts
  // for none of their callers, each request names its identity itself. A policy service of the
  // version before GetServiceAccesses (a rolling upgrade) is asked one access at a time instead.
  const accessOf = createBatcher<{ req: policyPb.GetServiceAccessRequest; ctx: RequestContext }, policyPb.ServiceAccess__Output | undefined>(orOneByOne(async (asks) => {
    const { results } = await runWithContext(contextOfMany(asks.map((a) => a.ctx)), () => policy.getServiceAccesses({ requests: asks.map((a) => a.req) }));
    return results.map((r) => (r.result === 'notFound' ? undefined : r.access ?? new Error('the policy service answered an access with neither access nor notFound')));
  }, ({ req, ctx }) => runWithContext(ctx, () => orMissing(policy.getServiceAccess(req)))));
  // What is held is shared by the requests it answers: read, never changed.
  const held = createHeldAnswers<ServiceAccess | undefined>(changes, MAX_HELD_ACCESSES);
  const intern = createRouterInterning(changes);

  const toView = (r: ipb.Router__Output): EdgeRouterView => intern({
    id: r.id, name: r.name, hostname: r.hostname, cost: r.cost, isOnline: false, noTraversal: r.noTraversal,
    disabled: r.disabled, supportedProtocols: r.supportedProtocols, appDataJson: r.appDataJson,
  });

  // An identity's every access, in one call, once it asks for a second service with no access
  // held within a hold's time: an SDK dials many services, each a call of its own otherwise. An
  // identity dialing one service is never read so. `null`: not held so (too many services, or a
  // policy service of the version before GetIdentityAccesses).
  const everyHeld = createHeldAnswers<EveryAccess | null>(changes, MAX_HELD_IDENTITIES);
  // Accesses answered from an identity's every access: not held again by themselves, so none is
  // used longer than the hold of the answer it came in.
  const fromEvery = new WeakSet<ServiceAccess>();
  const everyLoading = new Map<string, Promise<EveryAccess | null>>();
  const dialers = new Map<string, { at: number; serviceId: string; every: boolean }>();
  const loadEvery = async (who: PeerIdentity, previous: EveryAccess | null | undefined): Promise<EveryAccess | null> => {
    let res: policyPb.GetIdentityAccessesResponse__Output;
    try {
      res = await policy.getIdentityAccesses({
        identityId: who.id, roleAttributes: who.roleAttributes, maxServices: MAX_SERVICES_HELD_PER_IDENTITY, knownVersion: previous?.version ?? '',
      });
    } catch (err) {
      if (isUnimplemented(err)) return null;
      throw err;
    }
    // The tables still stand where they stood: what is held stands (renewed without being sent again).
    if (res.unchanged && previous) return previous;
    if (!res.complete) return null;
    const routers = res.edgeRouters.map(toView);
    // Shared by the accesses that name the same routers, and the same granting policies.
    const sets = res.routerSets.map((s) => s.routers.map((i) => routers[i]!));
    const grants = new Map<string, Pick<ServiceAccess, 'policies' | 'checks'>>();
    const grantOf = (indexes: number[]) => {
      const key = indexes.join(',');
      let g = grants.get(key);
      if (!g) {
        const groups = indexes.map((i) => res.policies[i]!);
        grants.set(key, (g = { policies: grantingPolicies(groups), checks: checksOf(groups) }));
      }
      return g;
    };
    const accesses = new Map(res.accesses.map((a) => {
      const access: ServiceAccess = { id: a.serviceId, name: a.serviceName, permissions: a.permissions, ...grantOf(a.policies), edgeRouters: sets[a.routerSet] ?? [] };
      fromEvery.add(access);
      return [a.serviceId, access];
    }));
    return { version: res.version, accesses };
  };
  /**
   * The identity's every access when it is read so (see above), on a miss for `serviceId`;
   * undefined when it is not.
   */
  const everyAccessOf = (who: PeerIdentity, serviceId: string): Promise<EveryAccess | null> | undefined => {
    const key = `${who.id}\0${JSON.stringify(who.roleAttributes)}`;
    const now = Date.now();
    const last = dialers.get(key);
    const every = last !== undefined && now - last.at <= changes.holdMs && (last.every || last.serviceId !== serviceId);
    dialers.delete(key);
    dialers.set(key, { at: now, serviceId, every });
    if (dialers.size > MAX_DIALERS) dialers.delete(dialers.keys().next().value!);
    if (!every) return undefined;
    return everyHeld.through(key, (previous) => {
      let loading = everyLoading.get(key);
      if (!loading) {
        loading = loadEvery(who, previous).finally(() => everyLoading.delete(key));
        everyLoading.set(key, loading);
      }
      return loading;
    });
  };

  return {
    /**
     * Which of the services asked about each identity may use, keyed by {@link grantKey}, with
     * the posture checks of the granting policies: one call for many identities (the policy
     * service evaluates them together).
     */
    async grants(queries: ReadonlyArray<{ who: PeerIdentity; serviceIds: string[] }>): Promise<Map<string, Grant>> {
      const out = new Map<string, Grant>();
      for (let i = 0; i < queries.length; i += PAGE) {
        const { grants } = await policy.getServiceGrants({
          queries: queries.slice(i, i + PAGE).map((q) => ({ identityId: q.who.id, roleAttributes: q.who.roleAttributes, serviceIds: q.serviceIds })),
        });
        for (const g of grants) {
          out.set(grantKey(g.identityId, g.serviceId), { permissions: g.permissions, policies: grantingPolicies(g.postureQueries), checks: checksOf(g.postureQueries) });
        }
      }
      return out;
    },

    /** The ids of the services a role list selects (the policy service matches them). */
    async matchServices(s: RoleSelection): Promise<string[]> {
      return (await policy.matchServices({ roles: s.roles, semantic: s.semantic })).ids;
    },

    /**
     * What the identity may do with the service, in one call to the policy service (which matches
     * the edge routers in its read model of them), shared with the accesses asked meanwhile, or
     * the one held for the same question; undefined when the service does not exist, or with
     * `grantedOnly` when no policy grants it (never held: a grant made meanwhile is seen at once).
     */
    async access(who: PeerIdentity, serviceId: string, opts: { grantedOnly?: boolean; edgeRouters?: boolean } = {}): Promise<ServiceAccess | undefined> {
      const grantedOnly = opts.grantedOnly ?? false;
      const edgeRouters = opts.edgeRouters ?? false;
      const key = `${who.id}\0${serviceId}\0${grantedOnly ? 'g' : ''}${edgeRouters ? 'r' : ''}\0${JSON.stringify(who.roleAttributes)}`;
      return held.through(key, async () => {
        // A service missing from the identity's every access is asked for alone: granted since.
        // So is one whose identity's every access could not be read (the one call then answers
        // for itself, its error the caller's).
        const every = edgeRouters ? await everyAccessOf(who, serviceId)?.catch(() => undefined) : undefined;
        const known = every?.accesses.get(serviceId);
        if (known) return known;
        const a = await accessOf({
          req: { identityId: who.id, roleAttributes: who.roleAttributes, serviceId, grantedOnly, edgeRouters, edgeRouterCounts: false },
          ctx: currentContext(),
        });
        if (!a) return undefined;
        return {
          id: a.serviceId, name: a.serviceName, permissions: a.permissions, policies: grantingPolicies(a.policies), checks: checksOf(a.policies),
          edgeRouters: a.edgeRouters.map(toView),
        };
      }, (a) => a !== undefined && !fromEvery.has(a));
    },

    /** Every service the identity may use with the ids of its posture checks, and those checks. */
    async grantedServices(who: PeerIdentity): Promise<{ services: Array<{ id: string; name: string; checkIds: string[] }>; checks: Map<string, PostureCheckDef> }> {
      const services = await allPages(async (query) => {
        const p = await policy.listServicesForIdentity({ identityId: who.id, roleAttributes: who.roleAttributes, configTypes: [], query, policyType: '' });
        return { items: p.services, meta: p.meta };
      });
      return {
        services: services.map((s) => ({ id: s.id, name: s.name, checkIds: [...new Set(s.postureQueries.flatMap((g) => g.checks.map((c) => c.id)))] })),
        checks: new Map(services.flatMap((s) => [...checksOf(s.postureQueries)])),
      };
    },

    /** The digest of the identity's whole service list and the posture checks it names. */
    async serviceListDigest(who: { identityId: string; roleAttributes: string[] }): Promise<policyPb.ServiceListDigest__Output> {
      return policy.getServiceListDigest({ identityId: who.identityId, roleAttributes: who.roleAttributes });
    },

    /** A service by id (name only); undefined when it does not exist. */
    async service(id: string): Promise<{ id: string; name: string } | undefined> {
      const s = await orMissing(policy.getService({ id, configTypes: [] }));
      return s && { id: s.id, name: s.name };
    },

    /** The services among `ids` that exist, in one call per 500. */
    async existingServices(ids: readonly string[]): Promise<Set<string>> {
      return existingAmong(ids, async (query) => (await policy.listServices({ query, configTypes: [] })).services);
    },

    /** The configs among `ids` that exist, in one call per 500. */
    async existingConfigs(ids: readonly string[]): Promise<Set<string>> {
      return existingAmong(ids, async (query) => (await policy.listConfigs({ query })).configs);
    },
  };
}

export type PolicyPeer = ReturnType<typeof createPolicyPeer>;
