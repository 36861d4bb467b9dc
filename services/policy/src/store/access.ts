/**
 * What an identity may do with one service (GetServiceAccess, read on every session creation),
 * in few statements: the service, the grant and the granting policies with their posture checks
 * in one; the edge router policies selecting the identity and the service edge router policies
 * selecting the service in another (which the read model of edge routers extends to the edge
 * routers both select, store/edge-router-model.ts). Each statement reads the service by its
 * primary key itself, so the two run side by side.
 */
import { sql, type Kysely } from 'kysely';
import type { GrantingPolicy } from '../domain/evaluation.js';
import type { PolicyKysely } from './db.js';
import { groupGrantingPolicies, selectPolicyChecks, withGrants, withPostureChecks, type Caller, type PolicyCheckRow } from './evaluation.js';
import { selectingIds } from './policy.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** A service, the types an identity is granted on it (none when no policy grants it) and the granting policies with their checks. */
export interface ServiceGrant {
  service: { id: string; name: string };
  permissions: Array<'Dial' | 'Bind'>;
  policies: GrantingPolicy[];
}

/** One policy's edge router roles and semantic. */
export interface EdgeRouterSelection {
  roles: string[];
  semantic: string;
}

/** The edge router roles of the policies selecting each side of an access. */
export interface AccessRouterSelections {
  identitySide: EdgeRouterSelection[];
  serviceSide: EdgeRouterSelection[];
}

const ROUTER_POLICY_COLUMNS = ['p.id', 'p.semantic', 'p.edge_router_roles', 'p.edge_router_all', 'p.edge_router_ids', 'p.edge_router_attrs'] as const;

/**
 * `db` with the CTEs `svc (id, role_attributes)` (the service, by primary key), `erp` (the edge
 * router policies selecting the caller) and `serp` (the service edge router policies selecting
 * the service), each with `id, semantic, edge_router_roles, edge_router_all, edge_router_ids,
 * edge_router_attrs`. The policies are found through the indexes of each branch of
 * {@link selectingIds}; the service's id and attributes reach them as scalar subqueries, which
 * the index scans take as parameters.
 */
export function withRouterPolicies(db: PolicyKysely, caller: Caller, serviceId: string): Kysely<Any> {
  const d = db as Any;
  return d
    .with('svc', (q: Any) => q.selectFrom('services').select(['id', 'role_attributes']).where('id', '=', serviceId))
    .with('erp', (q: Any) => q.selectFrom('edge_router_policies as p').select(ROUTER_POLICY_COLUMNS)
      .where('p.id', 'in', selectingIds(d, 'edge_router_policies', 'identity', sql`${caller.identityId}::text`, sql`${caller.roleAttributes}::text[]`)))
    .with('serp', (q: Any) => q.selectFrom('service_edge_router_policies as p').select(ROUTER_POLICY_COLUMNS)
      .where('p.id', 'in', selectingIds(d, 'service_edge_router_policies', 'service', sql`(select svc.id from svc)`, sql`(select svc.role_attributes from svc)`))
      // A service that does not exist is selected by no policy, not even one selecting `#all`.
      .where(sql<boolean>`exists (select from svc)`));
}

export function createAccessStore(db: PolicyKysely) {
  return {
    /**
     * The service with the caller's grant on it and the granting policies with their posture
     * checks, in one statement: one row per granting policy and check (one row with no policy
     * when nothing grants it); undefined when the service does not exist.
     */
    async grant(caller: Caller, serviceId: string): Promise<ServiceGrant | undefined> {
      const withGrant = (withGrants(db, caller) as Any)
        .with('svc', (q: Any) => q.selectFrom('services').select(['id', 'name']).where('id', '=', serviceId))
        .with('gr', (q: Any) => q.selectFrom('grants').select(['grants.service_id', 'grants.permissions', 'grants.policy_ids']).where('grants.service_id', '=', serviceId));
      // The policy ids as one array (an init plan), so the policies are read by primary key.
      const q = withPostureChecks(withGrant, (d) => d.selectFrom('service_policies').where(sql<boolean>`id = any((select gr.policy_ids from gr)::text[])`));
      const from = (q as Any).selectFrom('svc').leftJoin('gr', (j: Any) => j.onTrue()).leftJoin('gp', (j: Any) => j.onTrue());
      const rows = await selectPolicyChecks(from).select(['svc.id as service_id', 'svc.name as service_name', 'gr.permissions as permissions']).execute() as
        Array<PolicyCheckRow & { service_id: string; service_name: string; permissions: string[] | null }>;
      const first = rows[0];
      if (!first) return undefined;
      return {
        service: { id: first.service_id, name: first.service_name },
        permissions: (first.permissions ?? []) as ServiceGrant['permissions'],
        policies: groupGrantingPolicies(rows),
      };
    },

    /** The edge router roles of the policies selecting the caller and of those selecting the service, in one statement. */
    async routerSelections(caller: Caller, serviceId: string): Promise<AccessRouterSelections> {
      const side = (d: Any, name: 'erp' | 'serp') => d.selectFrom(name).select([sql<string>`${name}::text`.as('side'), 'id', 'semantic', 'edge_router_roles']);
      const rows = await (withRouterPolicies(db, caller, serviceId) as Any).selectFrom((eb: Any) => side(eb, 'erp').unionAll(side(eb, 'serp')).as('s'))
        .selectAll().orderBy('side').orderBy('id').execute() as Array<{ side: 'erp' | 'serp'; semantic: string; edge_router_roles: string[] }>;
      const of = (name: 'erp' | 'serp') => rows.filter((r) => r.side === name).map((r) => ({ roles: r.edge_router_roles, semantic: r.semantic }));
      return { identitySide: of('erp'), serviceSide: of('serp') };
    },
  };
}

export type AccessStore = ReturnType<typeof createAccessStore>;
