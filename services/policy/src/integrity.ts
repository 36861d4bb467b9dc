/**
 * The policy service's part of a data integrity check: `@id` roles of policies naming
 * identities, edge routers (owned by the identity service), services or posture checks that no
 * longer exist. Fixing removes those roles and announces each policy changed.
 */
import type { PolicyEntity, PolicyEvents } from './events.js';
import type { IdentityDirectory } from './grpc/identities.js';
import type { IntegrityStore, PolicyTableRefs, RoleRef } from './store/integrity.js';

const TABLES: Array<PolicyTableRefs & { entity: PolicyEntity }> = [
  { table: 'service_policies', entity: 'service-policy', prefixes: ['identity', 'service', 'posture_check'] },
  { table: 'edge_router_policies', entity: 'edge-router-policy', prefixes: ['identity', 'edge_router'] },
  { table: 'service_edge_router_policies', entity: 'service-edge-router-policy', prefixes: ['service', 'edge_router'] },
];

const NOUN = { identity: 'identity', service: 'service', posture_check: 'posture check', edge_router: 'edge router' };

/** Checks (and optionally repairs) dangling `@id` roles. */
export function createIntegrityCheck(store: IntegrityStore, directory: Pick<IdentityDirectory, 'resolve' | 'edgeRouters'>, events: PolicyEvents) {
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
      const changed = new Map<string, string>();
      for (const prefix of t.prefixes) {
        const mine = refs.filter((r) => r.prefix === prefix);
        const known = await existing(prefix, [...new Set(mine.map((r) => r.ref))]);
        for (const r of mine.filter((x) => !known.has(x.ref))) {
          if (fix) {
            await store.removeRef(t, r);
            changed.set(r.policyId, r.policyName);
          }
          issues.push({ description: `policy: ${t.entity} ${r.policyId} (${r.policyName}) names ${NOUN[prefix]} @${r.ref}, which does not exist`, fixed: fix });
        }
      }
      for (const [id, name] of changed) await events.publish(t.entity, 'updated', { id, name });
    }
    return issues;
  };
}
