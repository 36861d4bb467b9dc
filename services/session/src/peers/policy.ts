/**
 * What sessions need from the policy service: service grants, posture checks, the services a
 * role list selects, and the edge routers a service may use. ARCHITECTURE.md rule 1: asked over
 * gRPC, never read from its schema.
 */
import { createHeldAnswers, unheardChanges, type HeardChanges } from '@edge/bus';
import type { PolicyServiceClient, common, policy as policyPb } from '@edge/proto';
import { allPages, contextOfMany, createBatcher, currentContext, orMissing, orOneByOne, runWithContext, type RequestContext, type RpcClient } from '@edge/rpc';
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
        const a = await accessOf({
          req: { identityId: who.id, roleAttributes: who.roleAttributes, serviceId, grantedOnly, edgeRouters, edgeRouterCounts: false },
          ctx: currentContext(),
        });
        if (!a) return undefined;
        return {
          id: a.serviceId, name: a.serviceName, permissions: a.permissions, policies: grantingPolicies(a.policies), checks: checksOf(a.policies),
          edgeRouters: a.edgeRouters.map((r) => intern({
            id: r.id, name: r.name, hostname: r.hostname, cost: r.cost, isOnline: false, noTraversal: r.noTraversal,
            disabled: r.disabled, supportedProtocols: r.supportedProtocols, appDataJson: r.appDataJson,
          })),
        };
      }, (a) => a !== undefined);
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
