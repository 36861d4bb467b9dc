/**
 * The hot path: which services an identity may dial or bind, in one SQL statement over the
 * role arrays. The service policies selecting the identity are found first (through the
 * indexes of each branch of the match); their service roles are then joined to services through four indexable
 * branches (#all, @id by primary key, AllOf by GIN containment, AnyOf by GIN overlap), so the
 * cost follows the number of grants, not the number of services times policies.
 */
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { precompiled, preparedAmong } from '@edge/db';
import { runList, type ListPlan } from '@edge/zitiql';
import type { PostureCheck } from '../domain/posture-check.js';
import type { Service } from '../domain/service.js';
import { selectingIds } from './policy.js';
import type { PolicyKysely, PostureChecksTable } from './db.js';
import { toDomain as postureCheckToDomain } from './posture-check.js';
import { createServiceStore, toDomain } from './service.js';

/** Service policies with the posture checks they select. */
export type GrantingPolicyRows = Array<{ id: string; name: string; type: 'Dial' | 'Bind'; checks: PostureCheck[] }>;

/** Who is asking: the identity's id and its role attributes (owned by the identity service). */
export interface Caller {
  identityId: string;
  roleAttributes: string[];
}

/** A service as an identity sees it: the types it is granted and the policies granting them. */
export interface GrantedService {
  service: Service;
  permissions: Array<'Dial' | 'Bind'>;
  policyIds: string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/**
 * A query with the CTE `grants (service_id, permissions, policy_ids)`: every service the caller
 * is granted, the policy types granting it and the policies. Built with the query builder so
 * every table is read from the service's own schema.
 */
export function withGrants(db: PolicyKysely, caller: Caller) {
  const branch = (d: Any, join: RawBuilder<unknown>, where?: RawBuilder<unknown>) => {
    let q = d.selectFrom('m').innerJoin('services as s', (j: Any) => j.on(join)).select(['s.id as service_id', 'm.type as type', 'm.id as policy_id']);
    if (where) q = q.where(where);
    return q;
  };
  return (db as Any)
    .with('m', (d: Any) => d.selectFrom('service_policies as p')
      .select(['p.id', 'p.type', 'p.semantic', 'p.service_all', 'p.service_ids', 'p.service_attrs'])
      .where('p.id', 'in', selectingIds(db as Any, 'service_policies', 'identity', sql`${caller.identityId}::text`, sql`${caller.roleAttributes}::text[]`)))
    .with('g', (d: Any) => branch(d, sql`m.service_all`)
      .unionAll(branch(d, sql`s.id = any(m.service_ids)`))
      .unionAll(branch(d, sql`s.role_attributes @> m.service_attrs`, sql`m.semantic = 'AllOf' and cardinality(m.service_attrs) > 0`))
      .unionAll(branch(d, sql`s.role_attributes && m.service_attrs`, sql`m.semantic = 'AnyOf'`)))
    .with('grants', (d: Any) => d.selectFrom('g')
      .select(['g.service_id', sql`array_agg(distinct g.type order by g.type)`.as('permissions'), sql`array_agg(distinct g.policy_id)`.as('policy_ids')])
      .groupBy('g.service_id')) as Kysely<Any>;
}

/** A row of {@link selectPolicyChecks}: a granting policy and one of its checks (its columns null when it has none). */
export type PolicyCheckRow = { policy_id: string; policy_name: string; policy_type: string } & Partial<Selectable<PostureChecksTable>>;

/**
 * `q` with the CTEs `gp` (the service policies `policies` selects) and `pc (policy_id, check_id)`:
 * each policy's posture check roles joined to the checks through indexable branches (`#all`,
 * `@id` by primary key, AllOf by GIN containment, AnyOf by GIN overlap), as the grants are
 * joined to services.
 */
export function withPostureChecks(q: Kysely<Any>, policies: (d: Kysely<Any>) => Any): Kysely<Any> {
  const branch = (d: Any, join: RawBuilder<unknown>, where?: RawBuilder<unknown>) => {
    let b = d.selectFrom('gp').innerJoin('posture_checks as c', (j: Any) => j.on(join)).select(['gp.id as policy_id', 'c.id as check_id']);
    if (where) b = b.where(where);
    return b;
  };
  return (q
    .with('gp', (d: Any) => policies(d).select(['id', 'name', 'type', 'semantic', 'posture_check_all', 'posture_check_ids', 'posture_check_attrs']))
    .with('pc', (d: Any) => branch(d, sql`gp.posture_check_all`)
      .union(branch(d, sql`c.id = any(gp.posture_check_ids)`))
      .union(branch(d, sql`c.role_attributes @> gp.posture_check_attrs`, sql`gp.semantic = 'AllOf' and cardinality(gp.posture_check_attrs) > 0`))
      .union(branch(d, sql`c.role_attributes && gp.posture_check_attrs`, sql`gp.semantic = 'AnyOf'`)))) as Kysely<Any>;
}

/** `from` (which has `gp` in scope, see {@link withPostureChecks}) joined to each policy's checks, one {@link PolicyCheckRow} per pair, in order. */
export function selectPolicyChecks(from: Any) {
  return from
    .leftJoin('pc', 'pc.policy_id', 'gp.id')
    // Each check by primary key (`offset 0` keeps the planner from hashing every check instead).
    .leftJoinLateral((eb: Any) => eb.selectFrom('posture_checks').selectAll().whereRef('posture_checks.id', '=', 'pc.check_id').offset(0).as('c'), (j: Any) => j.onTrue())
    .select(['gp.id as policy_id', 'gp.name as policy_name', 'gp.type as policy_type'])
    .select((eb: Any) => [
      'c.id', 'c.name', 'c.type_id', 'c.role_attributes', 'c.version', 'c.data', 'c.tags', 'c.created_at', 'c.updated_at',
    ].map((col) => eb.ref(col)))
    .orderBy('gp.id').orderBy('c.created_at').orderBy('c.id');
}

/** The policies of {@link PolicyCheckRow}s with their checks (a row without a policy is skipped). */
export function groupGrantingPolicies(rows: readonly PolicyCheckRow[]): GrantingPolicyRows {
  const out = new Map<string, GrantingPolicyRows[number]>();
  for (const r of rows) {
    if (!r.policy_id) continue;
    const p = out.get(r.policy_id) ?? { id: r.policy_id, name: r.policy_name, type: r.policy_type as 'Dial' | 'Bind', checks: [] };
    out.set(r.policy_id, p);
    if (r.id) p.checks.push(postureCheckToDomain(r as Selectable<PostureChecksTable>));
  }
  return [...out.values()];
}

/** A granted service: its id, the policy types granting it and the policies. */
export type GrantRow = { id: string; permissions: string[]; policy_ids: string[] };

/** The most ids {@link createEvaluationStore}'s `grantedIds` reads. */
export const GRANTED_IDS_READ = 501;

export function createEvaluationStore(db: PolicyKysely) {
  const services = createServiceStore(db);
  // Built and planned once (it is read for every evaluated page): the ids are one array parameter.
  const grantingPoliciesStatement = precompiled(1, (ids: string[]) => selectPolicyChecks(
    withPostureChecks(db as Any, (d) => d.selectFrom('service_policies').where(sql<boolean>`id = any(${ids}::text[])`)).selectFrom('gp'),
  ));
  // A client's page (no filter) is planned once per connection and order, not on every evaluation.
  const prepareList = preparedAmong(16);
  const grantedIdsStatement = precompiled(2, (identityId: string, roleAttributes: string[]) => withGrants(db, { identityId, roleAttributes })
    .selectFrom('grants').select('service_id').orderBy('service_id').limit(GRANTED_IDS_READ));
  const versionStatement = precompiled(0, () => (db as Any).selectNoFrom((eb: Any) => [
    eb.selectFrom('access_version').select('version').as('access'),
    eb.selectFrom('list_version').select('version').as('list'),
  ]));

  const granted = (rows: GrantRow[], found: Service[]): GrantedService[] => {
    const byId = new Map(found.map((s) => [s.id, s]));
    return rows.filter((r) => byId.has(r.id)).map((r) => ({
      service: byId.get(r.id)!, permissions: r.permissions as GrantedService['permissions'], policyIds: r.policy_ids,
    }));
  };

  return {
    /**
     * Where the tables a client's service list is read from stand now: the access and list
     * counters (migrations 008, 009), moved by every change to them in the change's transaction.
     */
    async version(): Promise<string> {
      const [row] = await versionStatement(db) as Array<{ access: string | number; list: string | number }>;
      return `${row!.access}.${row!.list}`;
    },

    /** The ids of the services the caller may dial or bind, in id order, {@link GRANTED_IDS_READ} at most. */
    async grantedIds(caller: Caller): Promise<string[]> {
      const rows = await grantedIdsStatement(db, caller.identityId, caller.roleAttributes) as Array<{ service_id: string }>;
      return rows.map((r) => r.service_id);
    },

    /**
     * A page of the services the caller may dial or bind, with the list's filter applied. Each
     * grant fetches its service by primary key (the lateral subquery's `offset 0` keeps the
     * planner from turning that into a scan of every service), and the page carries the whole
     * row, so no second query reads the services again.
     */
    async list(caller: Caller, plan: ListPlan, policyType?: 'Dial' | 'Bind'): Promise<{ items: GrantedService[]; total: number }> {
      let from = withGrants(db, caller).selectFrom('grants')
        .innerJoinLateral((eb: Any) => eb.selectFrom('services').selectAll().whereRef('services.id', '=', 'grants.service_id').offset(0).as('services'), (j: Any) => j.onTrue());
      if (policyType) from = from.where(sql<boolean>`${policyType}::text = any(grants.permissions)`);
      const { rows, total } = await runList(from, plan, (qb) => qb.selectAll('services').select(['grants.permissions as permissions', 'grants.policy_ids as policy_ids']), {
        inlineCount: true, prepare: prepareList,
      });
      const items = (rows as Array<Parameters<typeof toDomain>[0] & Omit<GrantRow, 'id'>>).map(({ permissions, policy_ids, ...row }) => ({
        service: toDomain(row), permissions: permissions as GrantedService['permissions'], policyIds: policy_ids,
      }));
      return { items, total };
    },

    /** One service, if the caller may dial or bind it. */
    async get(caller: Caller, serviceId: string): Promise<GrantedService | undefined> {
      const row = await withGrants(db, caller).selectFrom('grants')
        .select(['grants.service_id as id', 'grants.permissions', 'grants.policy_ids'])
        .where('grants.service_id', '=', serviceId).executeTakeFirst() as GrantRow | undefined;
      if (!row) return undefined;
      return granted([row], await services.findMany([serviceId]))[0];
    },

    /** Which of `serviceIds` the caller may dial or bind, with the policy types and policies granting each. */
    async grantsAmong(caller: Caller, serviceIds: readonly string[]): Promise<GrantRow[]> {
      if (serviceIds.length === 0) return [];
      return await withGrants(db, caller).selectFrom('grants')
        .select(['grants.service_id as id', 'grants.permissions', 'grants.policy_ids'])
        .where('grants.service_id', 'in', [...serviceIds]).execute() as GrantRow[];
    },

    /**
     * The granting policies among `ids` (name, type) with the posture checks their posture check
     * roles select, in one statement (see {@link withPostureChecks}). A policy selecting no check
     * comes back once with no check.
     */
    async grantingPolicies(ids: readonly string[]): Promise<GrantingPolicyRows> {
      if (ids.length === 0) return [];
      return groupGrantingPolicies(await grantingPoliciesStatement(db, [...ids]) as PolicyCheckRow[]);
    },
  };
}

export type EvaluationStore = ReturnType<typeof createEvaluationStore>;
