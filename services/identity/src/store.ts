/**
 * Every query of the identity service, and the row ↔ domain mapping.
 */
import type { ColumnType, Generated, Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { fieldError, notFound } from '@edge/errors';
import { isUniqueViolation } from '@edge/db';
import type { Identity, IdentityInput, Json, Precedence } from './domain/identity.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

interface IdentitiesTable {
  id: string;
  name: string;
  type_id: string;
  is_admin: boolean;
  is_default_admin: Generated<boolean>;
  role_attributes: string[];
  tags: Json;
  app_data: Json;
  default_hosting_cost: number;
  default_hosting_precedence: string;
  service_hosting_costs: Record<string, number>;
  service_hosting_precedences: Record<string, string>;
  external_id: string | null;
  auth_policy_id: string;
  permissions: string[];
  disabled: Generated<boolean>;
  disabled_at: Date | null;
  disabled_until: Date | null;
  env_info: Generated<Json>;
  sdk_info: Generated<Json>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface IdentityTypesTable {
  id: string;
  name: string;
  tags: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The identity schema as kysely sees it. */
export interface IdentityDb {
  identities: IdentitiesTable;
  identity_types: IdentityTypesTable;
}

type Row = Selectable<IdentitiesTable>;

function toDomain(r: Row): Identity {
  return {
    id: r.id,
    name: r.name,
    typeId: r.type_id,
    isAdmin: r.is_admin,
    isDefaultAdmin: r.is_default_admin,
    roleAttributes: r.role_attributes,
    tags: r.tags,
    appData: r.app_data,
    defaultHostingCost: r.default_hosting_cost,
    defaultHostingPrecedence: r.default_hosting_precedence as Precedence,
    serviceHostingCosts: r.service_hosting_costs,
    serviceHostingPrecedences: r.service_hosting_precedences as Record<string, Precedence>,
    externalId: r.external_id,
    authPolicyId: r.auth_policy_id,
    permissions: r.permissions,
    disabled: r.disabled,
    disabledAt: r.disabled_at,
    disabledUntil: r.disabled_until,
    envInfo: r.env_info,
    sdkInfo: r.sdk_info,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toRow(i: IdentityInput) {
  return {
    name: i.name,
    type_id: i.typeId,
    is_admin: i.isAdmin,
    role_attributes: i.roleAttributes,
    tags: JSON.stringify(i.tags) as unknown as Json,
    app_data: JSON.stringify(i.appData) as unknown as Json,
    default_hosting_cost: i.defaultHostingCost,
    default_hosting_precedence: i.defaultHostingPrecedence,
    service_hosting_costs: JSON.stringify(i.serviceHostingCosts) as unknown as Record<string, number>,
    service_hosting_precedences: JSON.stringify(i.serviceHostingPrecedences) as unknown as Record<string, string>,
    external_id: i.externalId,
    auth_policy_id: i.authPolicyId,
    permissions: i.permissions,
  };
}

/** Turns a unique violation into the field error OpenZiti answers with. */
function duplicateError(err: unknown, input: IdentityInput): never {
  const v = isUniqueViolation(err);
  if (v) {
    if (v.constraint?.includes('external_id')) throw fieldError('externalId', `duplicate value '${input.externalId}' in unique index on identities store`, input.externalId);
    if (v.constraint?.includes('name')) throw fieldError('name', `duplicate value '${input.name}' in unique index on identities store`, input.name);
  }
  throw err;
}

/** Creates the store over the service's own schema. */
export function createIdentityStore(db: Kysely<IdentityDb>) {
  return {
    db,

    async insert(id: string, input: IdentityInput, extra: { isDefaultAdmin?: boolean } = {}): Promise<Identity> {
      try {
        const row = await db
          .insertInto('identities')
          .values({ id, ...toRow(input), is_default_admin: extra.isDefaultAdmin ?? false, disabled_at: null, disabled_until: null })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toDomain(row);
      } catch (err) {
        duplicateError(err, input);
      }
    },

    async find(id: string): Promise<Identity | undefined> {
      const row = await db.selectFrom('identities').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDomain(row);
    },

    async get(id: string): Promise<Identity> {
      const found = await this.find(id);
      if (!found) throw notFound('identity', id);
      return found;
    },

    async findMany(ids: string[]): Promise<Identity[]> {
      if (ids.length === 0) return [];
      const rows = await db.selectFrom('identities').selectAll().where('id', 'in', ids).execute();
      return rows.map(toDomain);
    },

    async findDefaultAdmin(): Promise<Identity | undefined> {
      const row = await db.selectFrom('identities').selectAll().where('is_default_admin', '=', true).executeTakeFirst();
      return row && toDomain(row);
    },

    async list(limit: number, offset: number): Promise<{ items: Identity[]; total: number }> {
      const [rows, count] = await Promise.all([
        db.selectFrom('identities').selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
        db.selectFrom('identities').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toDomain), total: Number(count.n) };
    },

    async update(id: string, input: IdentityInput): Promise<Identity> {
      try {
        const row = await db
          .updateTable('identities')
          .set({ ...toRow(input), updated_at: sql<Date>`now()` })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        if (!row) throw notFound('identity', id);
        return toDomain(row);
      } catch (err) {
        duplicateError(err, input);
      }
    },

    async updateEnvironment(id: string, envInfo: Json | undefined, sdkInfo: Json | undefined): Promise<void> {
      const set: Record<string, unknown> = {};
      if (envInfo) set.env_info = JSON.stringify(envInfo);
      if (sdkInfo) set.sdk_info = JSON.stringify(sdkInfo);
      if (Object.keys(set).length === 0) return;
      const r = await db.updateTable('identities').set(set).where('id', '=', id).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw notFound('identity', id);
    },

    async delete(id: string): Promise<boolean> {
      const r = await db.deleteFrom('identities').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async countByAuthPolicy(authPolicyId: string): Promise<number> {
      const row = await db.selectFrom('identities').select((eb) => eb.fn.countAll<string>().as('n'))
        .where('auth_policy_id', '=', authPolicyId).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Disables (until: null means until enabled) or, with `disabled` false, enables an identity. */
    async setDisabled(id: string, disabled: boolean, until: Date | null): Promise<Identity> {
      const row = await db.updateTable('identities')
        .set({ disabled, disabled_at: disabled ? sql<Date>`now()` : null, disabled_until: disabled ? until : null, updated_at: sql<Date>`now()` })
        .where('id', '=', id).returningAll().executeTakeFirst();
      if (!row) throw notFound('identity', id);
      return toDomain(row);
    },
  };
}

export type IdentityStore = ReturnType<typeof createIdentityStore>;
