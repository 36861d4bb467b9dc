/**
 * What an identity may do with one service (GetServiceAccess, read on every session creation),
 * in one statement: the service, the grant and the granting policies with their posture checks;
 * with them, when asked, the edge router policies selecting the identity and the service edge
 * router policies selecting the service, and either the edge routers both select, matched in the
 * read model of edge routers (store/edge-router-model.ts), or both sides' roles, for the identity
 * service to match. */
import { sql, type Compilable, type RawBuilder } from 'kysely';
import { precompiled } from '@edge/db';
import type { GrantingPolicy } from '../domain/evaluation.js';
import type { RoleSelection } from '../domain/roles.js';
import type { PolicyKysely } from './db.js';
import { edgeRouterFromJson, type AccessRouters } from './edge-router-model.js';
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


/** The edge router roles of the policies selecting each side of an access. */
export interface AccessRouterSelections {
  identitySide: RoleSelection[];
  serviceSide: RoleSelection[];
}

const ROUTER_POLICY_COLUMNS = ['p.id', 'p.semantic', 'p.edge_router_roles', 'p.edge_router_all', 'p.edge_router_ids', 'p.edge_router_attrs'] as const;

/**
 * `q` with the CTE `erp`: the edge router policies selecting the caller, with `id, semantic,
 * edge_router_roles, edge_router_all, edge_router_ids, edge_router_attrs`, found through the
 * indexes of each branch of {@link selectingIds}.
 */
export function withIdentityRouterPolicies(q: Any, db: PolicyKysely, caller: Caller) {
  return q.with('erp', (c: Any) => c.selectFrom('edge_router_policies as p').select(ROUTER_POLICY_COLUMNS)
    .where('p.id', 'in', selectingIds(db as Any, 'edge_router_policies', 'identity', sql`${caller.identityId}::text`, sql`${caller.roleAttributes}::text[]`)));
}

/**
 * `q` (with the CTE `svc (id, role_attributes)`: the service) with the CTE `serp`: the service
 * edge router policies selecting the service, with the columns of `erp`. The service's id and
 * attributes reach the index scans of {@link selectingIds} as scalar subqueries, which they
 * take as parameters.
 */
export function withServiceRouterPolicies(q: Any, db: PolicyKysely) {
  return q.with('serp', (c: Any) => c.selectFrom('service_edge_router_policies as p').select(ROUTER_POLICY_COLUMNS)
    .where('p.id', 'in', selectingIds(db as Any, 'service_edge_router_policies', 'service', sql`(select svc.id from svc)`, sql`(select svc.role_attributes from svc)`)));
}

/**
 * The ids of the live routers of the read model (store/edge-router-model.ts) the edge router
 * roles of the policies in CTE `side` select (as `selectedByCondition` of @edge/roles: `#all`,
 * `@id` or `@name`, AllOf attributes all held, AnyOf one), a union of branches each read through
 * an index (primary key, name, GIN on the attributes).
 */
export function routersSelectedBy(d: Any, side: 'erp' | 'serp') {
  const col = (name: string) => sql.ref(`${side}.${name}`);
  const branch = (join: RawBuilder<unknown>, where?: RawBuilder<unknown>) => {
    let q = d.selectFrom(side).innerJoin('edge_routers as r', (j: Any) => j.on(join)).select('r.id').where('r.deleted', '=', false);
    if (where) q = q.where(where);
    return q;
  };
  return branch(sql`${col('edge_router_all')}`)
    .union(branch(sql`r.id = any(${col('edge_router_ids')})`))
    .union(branch(sql`r.name = any(${col('edge_router_ids')})`))
    .union(branch(sql`r.role_attributes @> ${col('edge_router_attrs')}`, sql`${col('semantic')} = 'AllOf' and cardinality(${col('edge_router_attrs')}) > 0`))
    .union(branch(sql`r.role_attributes && ${col('edge_router_attrs')}`, sql`${col('semantic')} = 'AnyOf'`));
}

/**
 * The columns of the edge routers part: with the read model, the edge routers both sides select
 * (a JSON array of model rows, as the model orders them; their ids as one array, an init plan, so
 * each is read by primary key) and how many each side selects; without it, both sides' edge
 * router roles (a JSON array).
 */
function routerColumns(want: RoutersWanted) {
  if (want.from === 'directory') {
    return [sql`(select coalesce(json_agg(json_build_object('side', s.side, 'semantic', s.semantic, 'roles', s.edge_router_roles) order by s.side, s.id), '[]')
      from (select 'erp' as side, id, semantic, edge_router_roles from erp union all select 'serp', id, semantic, edge_router_roles from serp) s)`.as('selections')];
  }
  const count = (cte: string) => (want.counts ? sql`(select count(*) from ${sql.raw(cte)})` : sql`0`);
  const routers = (eb: Any) => (want.routers
    ? eb.selectFrom('edge_routers as r').select(sql`coalesce(json_agg(to_jsonb(r) - 'seen_at' order by r.created_at, r.id), '[]')`.as('routers'))
      .where('r.deleted', '=', false).where(sql<boolean>`r.id = any(array(select id from by_identity intersect select id from by_service))`)
    : sql`'[]'::json`);
  return (eb: Any) => [count('by_identity').as('identity_count'), count('by_service').as('service_count'), routers(eb).as('routers')];
}

/** How the edge routers of an access are wanted: matched in the read model, or as both sides' roles for the identity service to match. */
export type RoutersWanted = { from: 'model'; routers: boolean; counts: boolean } | { from: 'directory' };

/** What one statement reads of an access: the grant, and the edge routers part asked for. */
export interface AccessRead {
  grant: ServiceGrant;
  routers?: AccessRouters;
  selections?: AccessRouterSelections;
}

type ReadRow = PolicyCheckRow & {
  service_id: string; service_name: string; permissions: string[] | null;
  identity_count?: string; service_count?: string; routers?: Array<Record<string, unknown>>; selections?: Array<RoleSelection & { side: string }>;
};

/** The statement of a read for `routers`, over `caller` and `serviceId`. */
function accessQuery(db: PolicyKysely, caller: Caller, serviceId: string, routers: RoutersWanted | undefined) {
  let q = (withGrants(db, caller) as Any)
    .with('svc', (c: Any) => c.selectFrom('services').select(['id', 'name', 'role_attributes']).where('id', '=', serviceId))
    .with('gr', (c: Any) => c.selectFrom('grants').select(['grants.service_id', 'grants.permissions', 'grants.policy_ids']).where('grants.service_id', '=', serviceId));
  // The policy ids as one array (an init plan), so the policies are read by primary key.
  q = withPostureChecks(q, (d) => d.selectFrom('service_policies').where(sql<boolean>`id = any((select gr.policy_ids from gr)::text[])`));
  if (routers) q = withServiceRouterPolicies(withIdentityRouterPolicies(q, db, caller), db);
  if (routers?.from === 'model') q = q.with('by_identity', (d: Any) => routersSelectedBy(d, 'erp')).with('by_service', (d: Any) => routersSelectedBy(d, 'serp'));
  const from = q.selectFrom('svc').leftJoin('gr', (j: Any) => j.onTrue()).leftJoin('gp', (j: Any) => j.onTrue());
  return selectPolicyChecks(from).select(['svc.id as service_id', 'svc.name as service_name', 'gr.permissions as permissions'])
    .select(routers ? routerColumns(routers) : []) as Compilable<ReadRow>;
}

type AccessStatement = (db: PolicyKysely, identityId: string, roleAttributes: string[], serviceId: string) => Promise<ReadRow[]>;

export function createAccessStore(db: PolicyKysely) {
  /**
   * The statement of each kind of read, built and compiled once (and kept prepared by the
   * server): it is read on every session creation, and building, compiling, parsing and planning
   * a statement this size cost several times what running it does.
   */
  const statements = new Map<string, AccessStatement>();
  const statementFor = (routers: RoutersWanted | undefined): AccessStatement => {
    const key = routers ? JSON.stringify(routers) : '';
    let statement = statements.get(key);
    if (!statement) {
      statement = precompiled(3, (identityId: string, roleAttributes: string[], serviceId: string) =>
        accessQuery(db, { identityId, roleAttributes }, serviceId, routers));
      statements.set(key, statement);
    }
    return statement;
  };

  return {
    /**
     * The service with the caller's grant on it and the granting policies with their posture
     * checks, and the edge routers part `routers` asks for, in one statement: one row per granting
     * policy and check (one row with no policy when nothing grants it), the edge routers part
     * repeated on each; undefined when the service does not exist.
     */
    async read(caller: Caller, serviceId: string, routers?: RoutersWanted): Promise<AccessRead | undefined> {
      const rows = await statementFor(routers)(db, caller.identityId, caller.roleAttributes, serviceId);
      const first = rows[0];
      if (!first) return undefined;
      const grant = {
        service: { id: first.service_id, name: first.service_name },
        permissions: (first.permissions ?? []) as ServiceGrant['permissions'],
        policies: groupGrantingPolicies(rows),
      };
      return { grant, ...routersOf(first) };
    },
  };
}

/** The edge routers part of a row, as asked for. */
function routersOf(row: ReadRow): Omit<AccessRead, 'grant'> {
  if (row.selections) {
    const of = (side: string) => row.selections!.filter((s) => s.side === side).map((s) => ({ roles: s.roles, semantic: s.semantic }));
    return { selections: { identitySide: of('erp'), serviceSide: of('serp') } };
  }
  if (!row.routers) return {};
  return {
    routers: {
      edgeRouters: row.routers.map(edgeRouterFromJson),
      identityEdgeRouterCount: Number(row.identity_count ?? 0), serviceEdgeRouterCount: Number(row.service_count ?? 0),
    },
  };
}

export type AccessStore = ReturnType<typeof createAccessStore>;
