/**
 * Management `GET /summary`: how many of each resource exist, as consoles show on their first
 * page. Each owner counts its own through its list (a page of one, whose meta carries the total).
 */
import { ok } from '@edge/envelope';
import type { common } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';

const ONE: common.ListQuery = { limit: 1, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '' };

type Counted = Promise<{ meta?: common.ListMeta__Output | null }>;

/** Registers `/summary` under the management base path. */
export function registerSummaryRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/summary`, 'admin', async () => {
    const counts: Record<string, () => Counted> = {
      identities: () => clients.identity.listIdentities({ query: ONE }),
      identityTypes: () => clients.identity.listIdentityTypes({ query: ONE }),
      edgeRouters: () => clients.identity.listRouters({ kind: 'edge', query: ONE }),
      routers: () => clients.identity.listRouters({ kind: 'transit', query: ONE }),
      apiSessions: () => clients.auth.listApiSessions({ query: ONE }),
      authenticators: () => clients.auth.listAuthenticators({ query: ONE }),
      authPolicies: () => clients.auth.listAuthPolicies({ query: ONE }),
      externalJwtSigners: () => clients.auth.listExternalJwtSigners({ query: ONE }),
      enrollments: () => clients.pki.listEnrollments({ query: ONE }),
      configTypes: () => clients.policy.listConfigTypes({ query: ONE }),
      configs: () => clients.policy.listConfigs({ query: ONE }),
      services: () => clients.policy.listServices({ query: ONE, configTypes: [] }),
      servicePolicies: () => clients.policy.listServicePolicies({ query: ONE }),
      edgeRouterPolicies: () => clients.policy.listEdgeRouterPolicies({ query: ONE }),
      serviceEdgeRouterPolicies: () => clients.policy.listServiceEdgeRouterPolicies({ query: ONE }),
      postureChecks: () => clients.policy.listPostureChecks({ query: ONE }),
    };
    const entries = await Promise.all(Object.entries(counts).map(async ([name, count]) => [name, Number((await count()).meta?.totalCount ?? 0)] as const));
    return { body: ok(Object.fromEntries(entries)) };
  });
}
