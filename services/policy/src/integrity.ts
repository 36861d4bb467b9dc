/**
 * The policy service's part of a data integrity check: `@id` roles of policies naming
 * identities, edge routers (owned by the identity service), services or posture checks that no
 * longer exist. Fixing removes those roles and announces each policy changed.
 */
import type { PolicyEntity } from '@edge/events';
import { rolesOf, type PolicyEvents } from './events.js';
import type { IdentityDirectory } from './grpc/identities.js';
import type { IntegrityStore, PolicyTableRefs, RoleRef } from './store/integrity.js';
import type { PolicyStores } from './store/index.js';

const TABLES: Array<PolicyTableRefs & { entity: PolicyEntity; store: 'servicePolicies' | 'edgeRouterPolicies' | 'serviceEdgeRouterPolicies' }> = [
  { table: 'service_policies', entity: 'service-policy', store: 'servicePolicies', prefixes: ['identity', 'service', 'posture_check'] },
  { table: 'edge_router_policies', entity: 'edge-router-policy', store: 'edgeRouterPolicies', prefixes: ['identity', 'edge_router'] },
  { table: 'service_edge_router_policies', entity: 'service-edge-router-policy', store: 'serviceEdgeRouterPolicies', prefixes: ['service', 'edge_router'] },
];

const NOUN = { identity: 'identity', service: 'service', posture_check: 'posture check', edge_router: 'edge router' };

/** Checks (and optionally repairs) dangling `@id` roles. */
export function createIntegrityCheck(store: IntegrityStore, directory: Pick<IdentityDirectory, 'resolve' | 'edgeRouters'>, events: PolicyEvents) {
  /** Removes the role and announces the policy changed, in one transaction. */
  async function removeRef(t: (typeof TABLES)[number], r: RoleRef): Promise<void> {
    await events.write(async (s: PolicyStores, announce) => {
      const before = await s[t.store].get(r.policyId, { lock: true });
      await s.integrity.removeRef(t, r);
      const after = await s[t.store].get(r.policyId);
      await announce(t.entity, 'updated', { id: r.policyId, name: r.policyName, before: rolesOf(before), after: rolesOf(after) });
    });
  }

  /** The ids, among `refs`, of entities that exist. */
  async function existing(prefix: RoleRef['prefix'], refs: string[]): Promise<Set<string>> {
    if (prefix === 'service') return store.existing('services', refs);
    if (prefix === 'posture_check') return store.existing('posture_checks', refs);
    const found = prefix === 'identity' ? await directory.resolve(refs) : await directory.edgeRouters(refs);
    return new Set(found.map((e) => e.id));
  }

  return async function check(fix: boolean): Promise<Array<{ description: string; fixed: boolean }>> {
    const issues = [];
    for (const t of TABLES) {
      const refs = await store.roleRefs(t);
      for (const prefix of t.prefixes) {
        const mine = refs.filter((r) => r.prefix === prefix);
        const known = await existing(prefix, [...new Set(mine.map((r) => r.ref))]);
        for (const r of mine.filter((x) => !known.has(x.ref))) {
          if (fix) await removeRef(t, r);
          issues.push({ description: `policy: ${t.entity} ${r.policyId} (${r.policyName}) names ${NOUN[prefix]} @${r.ref}, which does not exist`, fixed: fix });
        }
      }
    }
    return issues;
  };
}
