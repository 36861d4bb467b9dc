/**
 * What sessions need from the services owning the facts: identities and edge routers (identity
 * service), service grants, posture checks and router policies (policy service), API sessions
 * (auth service). ARCHITECTURE.md rule 1: asked over gRPC, never read from their schemas.
 */
import type { AuthServiceClient, IdentityServiceClient, PolicyServiceClient, common, policy as policyPb } from '@edge/proto';
import { ALL_PAGES_LIMIT, allPages, currentContext, everythingFrom, orMissing, type CallerPrincipal, type RpcClient } from '@edge/rpc';
import type { GrantingPolicy, PostureCheckDef } from '../domain/posture.js';
import { checksOf, grantingPolicies } from '../posture-definition.js';

/** An identity as sessions see it. */
export interface PeerIdentity {
  id: string;
  roleAttributes: string[];
  disabled: boolean;
}

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
  supportedProtocolsJson: string;
  appDataJson: string;
}

const PAGE = ALL_PAGES_LIMIT;
const everything = everythingFrom;

/** A filter naming these ids. */
const idIn = (ids: readonly string[]) => `id in [${ids.map((id) => JSON.stringify(id)).join(', ')}]`;

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

/** A role list and its semantic, as a policy holds them. */
export interface RoleSelection {
  roles: string[];
  semantic: string;
}

/** An API session as reconciliation sees it: that it exists, and when it passed MFA. */
export interface PeerApiSession {
  id: string;
  mfaPassedAt?: Date;
}

/** When an API session passed MFA: it is last updated then (activity is kept apart); undefined when it did not. */
const mfaPassedAtOf = (s: { isMfaRequired: boolean; isMfaComplete: boolean; updatedAt: string }) =>
  (s.isMfaRequired && s.isMfaComplete ? new Date(s.updatedAt) : undefined);

/**
 * The principal of the request being served, when it is the caller `matches` names: the gateway
 * sends it in the call metadata (libs/rpc principal.ts), so what it says of its own identity and
 * API session needs no call to the auth or identity service. Reconciliation runs without one.
 */
function callerWhere(matches: (p: CallerPrincipal) => boolean): CallerPrincipal | undefined {
  const p = currentContext().principal;
  return p && matches(p) ? p : undefined;
}

/** When the caller's API session passed MFA, as its principal says. */
const principalMfaPassedAt = (p: CallerPrincipal) =>
  (p.mfa.required && p.mfa.complete && p.mfa.passedAt ? new Date(p.mfa.passedAt) : undefined);

/** The key of an (identity, service) pair in {@link SessionPeers.grants}. */
export const grantKey = (identityId: string, serviceId: string) => `${identityId}\0${serviceId}`;

export function createSessionPeers(clients: {
  identity: RpcClient<IdentityServiceClient>;
  policy: RpcClient<PolicyServiceClient>;
  auth: RpcClient<AuthServiceClient>;
}) {
  const { identity, policy, auth } = clients;
  return {
    /** The identity: the caller's from its principal (a validated API session: enabled), any other asked. */
    async identity(id: string): Promise<PeerIdentity | undefined> {
      const self = callerWhere((p) => p.identityId === id);
      if (self) return { id, roleAttributes: self.roleAttributes, disabled: false };
      const i = await orMissing(identity.getIdentity({ id }));
      return i && { id: i.id, roleAttributes: i.roleAttributes, disabled: i.disabled };
    },

    /** The identities among `ids` that exist, in one call per 500. */
    async identities(ids: readonly string[]): Promise<Map<string, PeerIdentity>> {
      const out = new Map<string, PeerIdentity>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += PAGE) {
        const { identities } = await identity.getIdentities({ ids: unique.slice(i, i + PAGE) });
        for (const x of identities) out.set(x.id, { id: x.id, roleAttributes: x.roleAttributes, disabled: x.disabled });
      }
      return out;
    },

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

    /** The ids of the identities a role list selects (the identity service matches them). */
    async matchIdentities(s: RoleSelection): Promise<string[]> {
      return (await identity.matchIdentities({ roles: s.roles, semantic: s.semantic })).ids;
    },

    /** The ids of the services a role list selects (the policy service matches them). */
    async matchServices(s: RoleSelection): Promise<string[]> {
      return (await policy.matchServices({ roles: s.roles, semantic: s.semantic })).ids;
    },

    /** The API sessions among `ids` that exist, with when each passed MFA, in one call per 500. */
    async apiSessions(ids: readonly string[]): Promise<Map<string, PeerApiSession>> {
      const out = new Map<string, PeerApiSession>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += PAGE) {
        const chunk = unique.slice(i, i + PAGE);
        const page = await auth.listApiSessions({ query: { ...everything(0), limit: chunk.length, filter: idIn(chunk) } });
        for (const s of page.apiSessions) out.set(s.id, { id: s.id, mfaPassedAt: mfaPassedAtOf(s) });
      }
      return out;
    },

    /**
     * What the identity may do with the service, in one call to the policy service (which matches
     * the edge routers in its read model of them); undefined when the service does not exist, or
     * with `grantedOnly` when no policy grants it.
     */
    async access(who: PeerIdentity, serviceId: string, opts: { grantedOnly?: boolean; edgeRouters?: boolean } = {}): Promise<ServiceAccess | undefined> {
      const a = await orMissing(policy.getServiceAccess({
        identityId: who.id, roleAttributes: who.roleAttributes, serviceId, grantedOnly: opts.grantedOnly ?? false, edgeRouters: opts.edgeRouters ?? false, edgeRouterCounts: false,
      }));
      if (!a) return undefined;
      return {
        id: a.serviceId, name: a.serviceName, permissions: a.permissions, policies: grantingPolicies(a.policies), checks: checksOf(a.policies),
        edgeRouters: a.edgeRouters.map((r) => ({
          id: r.id, name: r.name, hostname: r.hostname, cost: r.cost, isOnline: false, noTraversal: r.noTraversal,
          disabled: r.disabled, supportedProtocolsJson: r.supportedProtocolsJson, appDataJson: r.appDataJson,
        })),
      };
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
    async serviceListDigest(who: { identityId: string; roleAttributes: string[]; configTypes: string[] }): Promise<policyPb.ServiceListDigest__Output> {
      return policy.getServiceListDigest({ identityId: who.identityId, roleAttributes: who.roleAttributes, configTypes: who.configTypes });
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

    /** The routers (edge or transit) among `ids` that exist, in one call per kind and 500. */
    async existingRouters(ids: readonly string[]): Promise<Set<string>> {
      const out = new Set<string>();
      const unique = [...new Set(ids)];
      for (const kind of ['edge', 'transit'] as const) {
        for (let i = 0; i < unique.length; i += PAGE) {
          const chunk = unique.slice(i, i + PAGE);
          const page = await identity.listRouters({ kind, query: { ...everything(0), limit: chunk.length, filter: idIn(chunk) } });
          page.routers.forEach((r) => out.add(r.id));
        }
      }
      return out;
    },

    /** An edge or transit router by id; undefined when neither exists. */
    async router(id: string): Promise<{ id: string; name: string; kind: 'edge' | 'transit' } | undefined> {
      for (const kind of ['edge', 'transit'] as const) {
        const r = await orMissing(identity.getRouter({ kind, id }));
        if (r) return { id: r.id, name: r.name, kind };
      }
      return undefined;
    },

    async apiSessionExists(id: string): Promise<boolean> {
      if (callerWhere((p) => p.apiSessionId === id)) return true;
      return (await orMissing(auth.getApiSession({ id }))) !== undefined;
    },

    /** The identity's current API sessions, with when each passed MFA. */
    async apiSessionsOf(identityId: string): Promise<Array<{ id: string; mfaPassedAt?: Date }>> {
      const sessions = await allPages(async (query) => {
        const p = await auth.listApiSessions({ query: { ...query, filter: `identity = ${JSON.stringify(identityId)}` } });
        return { items: p.apiSessions, meta: p.meta };
      });
      return sessions.map((s) => ({ id: s.id, mfaPassedAt: mfaPassedAtOf(s) }));
    },

    /** When the API session completed MFA (the MFA posture check); undefined when it did not, or is gone. */
    async mfaPassedAt(id: string): Promise<Date | undefined> {
      const self = callerWhere((p) => p.apiSessionId === id);
      if (self) return principalMfaPassedAt(self);
      const s = await orMissing(auth.getApiSession({ id }));
      return s && mfaPassedAtOf(s);
    },
  };
}

export type SessionPeers = ReturnType<typeof createSessionPeers>;
