/**
 * Queries of the three policy kinds. They differ only in their table, role columns and typed
 * fields, so one store serves each, parameterised by its table description.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { inChunks } from '@edge/db';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { RoleSemantic } from '@edge/roles';
import { EDGE_ROUTER_POLICY, SERVICE_EDGE_ROUTER_POLICY, SERVICE_POLICY, type Policy, type PolicyInput, type PolicyKind, type RoleField } from '../domain/policy.js';
import { splitRoles } from '../domain/roles.js';
import { found, json, NOW, writeError, type PolicyKysely } from './db.js';

/** Column prefix of each role field (`identity_roles`, `identity_all`, `identity_attrs`, `identity_ids`). */
export const ROLE_PREFIX: Record<RoleField, string> = {
  identityRoles: 'identity', serviceRoles: 'service', postureCheckRoles: 'posture_check', edgeRouterRoles: 'edge_router',
};

/** A policy kind and the table holding it. */
export interface PolicyTable extends PolicyKind {
  table: 'service_policies' | 'edge_router_policies' | 'service_edge_router_policies';
  /** Store name in duplicate-name errors, as OpenZiti words them. */
  storeName: string;
  system: boolean;
}

export const SERVICE_POLICY_TABLE: PolicyTable = { ...SERVICE_POLICY, table: 'service_policies', storeName: 'servicePolicies', system: false };
export const EDGE_ROUTER_POLICY_TABLE: PolicyTable = { ...EDGE_ROUTER_POLICY, table: 'edge_router_policies', storeName: 'edgeRouterPolicies', system: true };
export const SERVICE_EDGE_ROUTER_POLICY_TABLE: PolicyTable = { ...SERVICE_EDGE_ROUTER_POLICY, table: 'service_edge_router_policies', storeName: 'serviceEdgeRouterPolicies', system: false };

/** What a filter on a policy list may read. */
export function policyFields(t: PolicyTable): FieldMap {
  const roles = Object.fromEntries(t.roleFields.map((f) => [f, field.set(`${ROLE_PREFIX[f]}_roles`)]));
  return {
    ...entityFields({ named: true }),
    semantic: field.string('semantic'),
    ...roles,
    ...(t.typed ? { type: field.string('type') } : {}),
    ...(t.system ? { isSystem: field.bool('is_system') } : {}),
  };
}

/**
 * The condition on a policy row (alias `p`) that its `prefix` roles select an entity with
 * this id and these attributes: `#all`, `@id`, or the attributes per the policy's semantic
 * (AllOf needs at least one attribute role, all of them held, as controller/db/policy_common.go;
 * AnyOf one of them). An AllOf list the entity holds overlaps its attributes, so both semantics
 * share the overlap as their indexable part.
 */
export function selects(prefix: string, id: Expression<unknown>, attrs: Expression<unknown>): Expression<SqlBool> {
  const c = (name: string) => sql.ref(`p.${prefix}_${name}`);
  return sql<SqlBool>`(${c('all')} or ${c('ids')} @> array[${id}]
    or (${c('attrs')} && ${attrs} and (p.semantic = 'AnyOf' or ${c('attrs')} <@ ${attrs})))`;
}

/**
 * The ids of the policies of `table` selecting the entity ({@link selects}), as a union of its
 * three branches, each read through an index (a partial index on `#all`, GIN on the ids, GIN on
 * the attributes), so finding them does not read every policy.
 */
export function selectingIds(db: Kysely<Record<string, Row>>, table: PolicyTable['table'], prefix: string, id: Expression<unknown>, attrs: Expression<unknown>) {
  const c = (name: string) => sql.ref(`p.${prefix}_${name}`);
  const branch = (where: Expression<SqlBool>) => db.selectFrom(`${table} as p`).select('p.id').where(where);
  return branch(sql<SqlBool>`${c('all')}`)
    .union(branch(sql<SqlBool>`${c('ids')} @> array[${id}]`))
    .union(branch(sql<SqlBool>`${c('attrs')} && ${attrs} and (p.semantic = 'AnyOf' or ${c('attrs')} <@ ${attrs})`));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

function toDomain(t: PolicyTable, r: Row): Policy {
  return {
    id: r.id, name: r.name, semantic: r.semantic as RoleSemantic, tags: r.tags, createdAt: r.created_at, updatedAt: r.updated_at,
    roles: Object.fromEntries(t.roleFields.map((f) => [f, r[`${ROLE_PREFIX[f]}_roles`] as string[]])),
    ...(t.typed ? { type: r.type } : {}),
    ...(t.system ? { isSystem: r.is_system } : {}),
  };
}

function toRow(t: PolicyTable, i: PolicyInput): Row {
  const row: Row = { name: i.name, semantic: i.semantic, tags: json(i.tags) };
  if (t.typed) row.type = i.type;
  for (const f of t.roleFields) {
    const roles = i.roles[f] ?? [];
    const split = splitRoles(roles);
    const p = ROLE_PREFIX[f];
    Object.assign(row, { [`${p}_roles`]: roles, [`${p}_all`]: split.all, [`${p}_attrs`]: split.attrs, [`${p}_ids`]: split.ids });
  }
  return row;
}

/** Narrowing of a policy list to the policies whose `prefix` roles select one entity. */
export interface PolicyScope {
  prefix: string;
  id: string;
  attributes: string[];
}

export function createPolicyStore(typed: PolicyKysely, t: PolicyTable) {
  // The three tables share their shape; their columns are named from the table description.
  const db = typed as unknown as Kysely<Record<string, Row>>;

  return {
    table: t,
    fields: policyFields(t),

    async list(plan: ListPlan, scope?: PolicyScope): Promise<{ items: Policy[]; total: number }> {
      let from = db.selectFrom(`${t.table} as p`);
      if (scope) from = from.where(selects(scope.prefix, sql`${scope.id}::text`, sql`${scope.attributes}::text[]`));
      const { rows, total } = await runList(from, plan, (qb) => qb.selectAll());
      return { items: (rows as Row[]).map((r) => toDomain(t, r)), total };
    },

    /** With `lock`, the row stays locked until the transaction the store runs in ends (the roles before a write). */
    async get(id: string, opts: { lock?: boolean } = {}): Promise<Policy> {
      let q = db.selectFrom(t.table).selectAll().where('id', '=', id);
      if (opts.lock) q = q.forUpdate();
      return toDomain(t, found(await q.executeTakeFirst(), t.entity, id));
    },

    /** Every policy whose `prefix` roles select the entity (no paging: what a change may affect). */
    async selecting(scope: PolicyScope): Promise<Policy[]> {
      const ids = selectingIds(db, t.table, scope.prefix, sql`${scope.id}::text`, sql`${scope.attributes}::text[]`);
      const rows = await db.selectFrom(t.table).selectAll().where('id', 'in', ids).orderBy('id').execute();
      return rows.map((r) => toDomain(t, r));
    },

    /** `isSystem` (tables with system policies only): made and removed by the controller itself. */
    async insert(id: string, input: PolicyInput, opts: { isSystem?: boolean } = {}): Promise<Policy> {
      try {
        await db.insertInto(t.table).values({ id, ...toRow(t, input), ...(t.system && opts.isSystem ? { is_system: true } : {}) }).execute();
      } catch (err) {
        writeError(err, t.storeName, input.name);
      }
      return this.get(id);
    },

    /** Many policies in a few statements (bulk import). */
    async insertMany(rows: ReadonlyArray<{ id: string; input: PolicyInput }>): Promise<void> {
      await inChunks(rows, (chunk) => db.insertInto(t.table).values(chunk.map(({ id, input }) => ({ id, ...toRow(t, input) })))
        .execute().catch((err: unknown) => writeError(err, t.storeName, chunk[0]!.input.name)));
    },

    async update(id: string, input: PolicyInput): Promise<Policy> {
      try {
        const r = await db.updateTable(t.table).set({ ...toRow(t, input), updated_at: NOW }).where('id', '=', id).executeTakeFirst();
        found(Number(r.numUpdatedRows) > 0 || undefined, t.entity, id);
      } catch (err) {
        writeError(err, t.storeName, input.name);
      }
      return this.get(id);
    },

    async delete(id: string): Promise<boolean> {
      const r = await db.deleteFrom(t.table).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

export type PolicyStore = ReturnType<typeof createPolicyStore>;
