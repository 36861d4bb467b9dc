/**
 * The policy schema as kysely sees it, and the helpers every store of this service shares.
 */
import { sql, type ColumnType, type Generated, type Kysely } from 'kysely';
import { fieldError, notFound } from '@edge/errors';
import { runList, type ListPlan } from '@edge/zitiql';
import { isForeignKeyViolation, isUniqueViolation } from '@edge/db';
import type { Json } from '../domain/entity.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type JsonColumn = ColumnType<Json, string, string>;
type JsonArrayColumn = ColumnType<unknown[], string, string>;

interface EntityColumns {
  id: string;
  tags: JsonColumn;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ConfigTypesTable extends EntityColumns {
  name: string;
  schema: JsonColumn;
  target: string;
}

export interface ConfigsTable extends EntityColumns {
  name: string;
  config_type_id: string;
  data: JsonColumn;
}

export interface ServicesTable extends EntityColumns {
  name: string;
  encryption_required: boolean;
  max_idle_time_millis: ColumnType<string | number, number, number>;
  terminator_strategy: string;
  role_attributes: string[];
  config_ids: string[];
}

export interface ServiceConfigsTable {
  service_id: string;
  config_id: string;
  config_type_id: string;
}

export interface PostureCheckTypesTable extends EntityColumns {
  name: string;
  operating_systems: JsonArrayColumn;
}

export interface PostureChecksTable extends EntityColumns {
  name: string;
  type_id: string;
  role_attributes: string[];
  version: number;
  data: JsonColumn;
}

/** A role list as given, and its split the evaluation queries join on (see domain/roles.ts). */
type Split<P extends string> = { [K in `${P}_all`]: boolean } & { [K in `${P}_attrs` | `${P}_ids`]: string[] } & { [K in `${P}_roles`]: string[] };

export type ServicePoliciesTable = EntityColumns & Split<'identity'> & Split<'service'> & Split<'posture_check'> & {
  name: string;
  type: string;
  semantic: string;
};

export type EdgeRouterPoliciesTable = EntityColumns & Split<'identity'> & Split<'edge_router'> & {
  name: string;
  semantic: string;
  is_system: Generated<boolean>;
};

export type ServiceEdgeRouterPoliciesTable = EntityColumns & Split<'service'> & Split<'edge_router'> & {
  name: string;
  semantic: string;
};

/** The read model of edge routers (store/edge-router-model.ts). */
export interface EdgeRoutersTable {
  id: string;
  name: string;
  role_attributes: string[];
  hostname: string;
  cost: number;
  no_traversal: boolean;
  disabled: boolean;
  is_tunneler_enabled: boolean;
  supported_protocols: JsonColumn;
  app_data: JsonColumn;
  deleted: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  seen_at: Timestamp;
}

export interface EdgeRouterModelFillTable {
  name: string;
  completed_at: Timestamp;
}

/** A counter every change to what an access depends on moves (migration 008_access_parts, store/access-parts.ts). */
export interface AccessVersionTable {
  version: number;
}

/** A counter every change to the rest of what a client's service list shows moves (migration 009_list_version). */
export interface ListVersionTable {
  version: number;
}

export interface PolicyDb {
  access_version: AccessVersionTable;
  list_version: ListVersionTable;
  edge_routers: EdgeRoutersTable;
  edge_router_model_fill: EdgeRouterModelFillTable;
  config_types: ConfigTypesTable;
  configs: ConfigsTable;
  services: ServicesTable;
  service_configs: ServiceConfigsTable;
  posture_check_types: PostureCheckTypesTable;
  posture_checks: PostureChecksTable;
  service_policies: ServicePoliciesTable;
  edge_router_policies: EdgeRouterPoliciesTable;
  service_edge_router_policies: ServiceEdgeRouterPoliciesTable;
}

export type PolicyKysely = Kysely<PolicyDb>;

/** `updated_at` on every write, at the millisecond precision the API renders. */
export const NOW = sql<Date>`date_trunc('milliseconds', now())`;

/** A JSON value as a jsonb parameter. */
export const json = (v: unknown) => JSON.stringify(v ?? {});

/**
 * Turns constraint violations into the errors OpenZiti answers with: a duplicate name is a
 * field error on `name`; anything else is rethrown.
 */
export function writeError(err: unknown, entity: string, name: string): never {
  const v = isUniqueViolation(err);
  if (v && v.constraint?.includes('name')) throw fieldError('name', `duplicate value '${name}' in unique index on ${entity} store`, name);
  if (isForeignKeyViolation(err)) throw fieldError('id', 'references an entity that does not exist', null);
  throw err;
}

/**
 * Runs `fn` in a transaction, or in the caller's when `db` already is one (stores built over the
 * transaction of a write and its events, see events.ts).
 */
export function inTransaction<T>(db: PolicyKysely, fn: (trx: PolicyKysely) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** Throws NOT_FOUND when a write touched no row. */
export function found<T>(row: T | undefined, entity: string, id: string): T {
  if (!row) throw notFound(entity, id);
  return row;
}

/**
 * The distinct role attributes of a table's entities as a list (each attribute is its own
 * `id`, as OpenZiti's `/service-role-attributes` answers), filtered, sorted and paged.
 */
export async function listRoleAttributes(db: PolicyKysely, table: 'services' | 'posture_checks', plan: ListPlan): Promise<{ items: string[]; total: number }> {
  const attrs = db.selectFrom(table).select(sql<string>`unnest(role_attributes)`.as('id')).distinct().as('attrs');
  const { rows, total } = await runList(db.selectFrom(attrs), plan, (qb) => qb.select('attrs.id'));
  return { items: (rows as Array<{ id: string }>).map((r) => r.id), total };
}
