/**
 * Queries on identities and identity types, and the row ↔ domain mapping.
 */
import type { Expression, Kysely, Selectable, SqlBool } from 'kysely';
import { sql } from 'kysely';
import { fieldError, notFound } from '@edge/errors';
import { inChunks, isUniqueViolation, precompiled } from '@edge/db';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { EnrollmentAsk } from '@edge/events';
import type { RoleColumns } from '@edge/roles';
import type { Identity, IdentityInput, Json, Precedence } from '../domain/identity.js';
import type { IdentityEvents } from '../events.js';
import type { IdentitiesTable, IdentityDb, IdentityTypesTable } from './db.js';

type Row = Selectable<IdentitiesTable>;
export type IdentityTypeRow = Selectable<IdentityTypesTable>;

/**
 * What a filter on `/identities` may read, by OpenZiti name (meta.filterableFields). Fields owned
 * by other services (authenticators, API sessions, MFA) are not filterable here.
 */
export const IDENTITY_FIELDS: FieldMap = {
  ...entityFields({ named: true }),
  // Identity type ids are their names (see the migration), so `type.name` reads the same column.
  type: field.string('type_id'),
  typeId: field.string('type_id'),
  'type.name': field.string('type_id'),
  isAdmin: field.bool('is_admin'),
  isDefaultAdmin: field.bool('is_default_admin'),
  roleAttributes: field.set('role_attributes'),
  authPolicy: field.string('auth_policy_id'),
  authPolicyId: field.string('auth_policy_id'),
  externalId: field.string('external_id', { nullable: true }),
  disabled: field.bool('disabled'),
  disabledAt: field.datetime('disabled_at', { nullable: true }),
  disabledUntil: field.datetime('disabled_until', { nullable: true }),
  defaultHostingCost: field.number('default_hosting_cost'),
  defaultHostingPrecedence: field.string('default_hosting_precedence'),
  serviceHostingCosts: field.map('service_hosting_costs'),
  serviceHostingPrecedences: field.map('service_hosting_precedences'),
  appData: field.map('app_data'),
  envInfo: field.map('env_info'),
  sdkInfo: field.map('sdk_info'),
};

/** The columns role lists (`#attr`, `@id`, `@name`) match identities on. */
export const IDENTITY_ROLE_COLUMNS: RoleColumns = { attributes: sql.ref('role_attributes'), id: sql.ref('id'), name: sql.ref('name') };

/** What a filter on `/identity-types` may read. */
export const IDENTITY_TYPE_FIELDS: FieldMap = entityFields({ named: true });

/** An identity row as the domain sees it. */
export function toDomain(r: Row): Identity {
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

/** Many identities in a few statements (bulk import, which announces nothing); names must be new. */
export async function insertIdentitiesInBulk(db: Kysely<IdentityDb>, rows: ReadonlyArray<{ id: string; input: IdentityInput }>): Promise<void> {
  await inChunks(rows, (chunk) => db.insertInto('identities')
    .values(chunk.map(({ id, input }) => ({ id, ...toRow(input), is_default_admin: false, disabled_at: null, disabled_until: null })))
    .execute().catch((err: unknown) => duplicateError(err, chunk[0]!.input)));
}

/**
 * Creates the store over the service's own schema. Every write records its event in its own
 * transaction (`events`), so an identity change and its announcement commit together.
 */
export function createIdentityStore(db: Kysely<IdentityDb>, events: IdentityEvents) {
  // Asked on every client request that shows the caller's identity: compiled once.
  const byId = precompiled(1, (id: string) => db.selectFrom('identities').selectAll().where('id', '=', id));
  /** Whether the identity holds these environment values already (a null one is not compared); no row when it is gone. */
  const environmentHeld = precompiled(3, (id: string, envInfo: string | null, sdkInfo: string | null) => db.selectFrom('identities')
    .select(sql<boolean>`(${envInfo}::jsonb is null or env_info = ${envInfo}::jsonb) and (${sdkInfo}::jsonb is null or sdk_info = ${sdkInfo}::jsonb)`.as('same'))
    .where('id', '=', id));
  return {
    db,

    /** Inserts; the created event carries the enrollments the identity is to have. */
    async insert(id: string, input: IdentityInput, extra: { isDefaultAdmin?: boolean; enrollments?: EnrollmentAsk[] } = {}): Promise<Identity> {
      try {
        return await events.transaction(async (trx) => {
          const row = await trx
            .insertInto('identities')
            .values({ id, ...toRow(input), is_default_admin: extra.isDefaultAdmin ?? false, disabled_at: null, disabled_until: null })
            .returningAll()
            .executeTakeFirstOrThrow();
          await events.created(trx, toDomain(row), extra.enrollments);
          return toDomain(row);
        });
      } catch (err) {
        duplicateError(err, input);
      }
    },

    async find(id: string): Promise<Identity | undefined> {
      const [row] = await byId(db, id);
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

    async list(plan: ListPlan): Promise<{ items: Identity[]; total: number }> {
      // Filtered, the page and the total read the same few rows: one statement. Unfiltered, a page
      // stops early on an index while the count alone reads the table, so they stay apart.
      const { rows, total } = await runList(db.selectFrom('identities'), plan, (qb) => qb.selectAll(), { inlineCount: plan.where !== undefined });
      return { items: (rows as Row[]).map(toDomain), total };
    },

    async listTypes(plan: ListPlan): Promise<{ items: IdentityTypeRow[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('identity_types'), plan, (qb) => qb.selectAll());
      return { items: rows as IdentityTypeRow[], total };
    },

    async listRoleAttributes(plan: ListPlan): Promise<{ items: string[]; total: number }> {
      const attributes = db.selectFrom('identities').select(sql<string>`unnest(role_attributes)`.as('id')).distinct().as('attributes');
      const { rows, total } = await runList(db.selectFrom(attributes), plan, (qb) => qb.select('id'));
      return { items: (rows as { id: string }[]).map((r) => r.id), total };
    },

    async matchIds(cond: Expression<SqlBool>): Promise<string[]> {
      const rows = await db.selectFrom('identities').select('id').where(cond).orderBy('id').execute();
      return rows.map((r) => r.id);
    },

    async setTrace(id: string, trace: { traceId: string; until: Date; channels: string[] } | null): Promise<void> {
      const r = await db.updateTable('identities')
        .set({ trace_id: trace?.traceId ?? null, trace_until: trace?.until ?? null, trace_channels: trace?.channels ?? [] })
        .where('id', '=', id).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw notFound('identity', id);
    },

    async getType(id: string): Promise<IdentityTypeRow> {
      const row = await db.selectFrom('identity_types').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('identity type', id);
      return row;
    },

    async update(id: string, input: IdentityInput): Promise<Identity> {
      try {
        return await events.transaction(async (trx) => {
          const row = await trx
            .updateTable('identities')
            .set({ ...toRow(input), updated_at: sql<Date>`date_trunc('milliseconds', now())` })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst();
          if (!row) throw notFound('identity', id);
          await events.updated(trx, toDomain(row));
          return toDomain(row);
        });
      } catch (err) {
        duplicateError(err, input);
      }
    },

    /**
     * Records the environment a login reported. Clients report the same one at every login: when
     * it is what the identity holds already (as JSON values, whatever the order of their keys),
     * nothing is written and nothing announced, which one read tells.
     */
    async updateEnvironment(id: string, envInfo: Json | undefined, sdkInfo: Json | undefined): Promise<void> {
      const set: Record<string, unknown> = {};
      if (envInfo) set.env_info = JSON.stringify(envInfo);
      if (sdkInfo) set.sdk_info = JSON.stringify(sdkInfo);
      if (Object.keys(set).length === 0) return;
      const [held] = await environmentHeld(db, id, (set.env_info as string | undefined) ?? null, (set.sdk_info as string | undefined) ?? null);
      if (!held) throw notFound('identity', id);
      if (held.same) return;
      await events.transaction(async (trx) => {
        const r = await trx.updateTable('identities').set(set).where('id', '=', id).executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) throw notFound('identity', id);
        await events.environment(trx, id);
      });
    },

    /** Deletes an identity; false when it was already gone (then nothing is announced). */
    async delete(id: string): Promise<boolean> {
      return events.transaction(async (trx) => {
        const row = await trx.deleteFrom('identities').where('id', '=', id).returningAll().executeTakeFirst();
        if (row) await events.deleted(trx, toDomain(row));
        return row !== undefined;
      });
    },

    async countByAuthPolicy(authPolicyId: string): Promise<number> {
      const row = await db.selectFrom('identities').select((eb) => eb.fn.countAll<string>().as('n'))
        .where('auth_policy_id', '=', authPolicyId).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Disables (until: null means until enabled) or, with `disabled` false, enables an identity. */
    async setDisabled(id: string, disabled: boolean, until: Date | null): Promise<Identity> {
      return events.transaction(async (trx) => {
        const row = await trx.updateTable('identities')
          .set({ disabled, disabled_at: disabled ? sql<Date>`now()` : null, disabled_until: disabled ? until : null, updated_at: sql<Date>`now()` })
          .where('id', '=', id).returningAll().executeTakeFirst();
        if (!row) throw notFound('identity', id);
        const identity = toDomain(row);
        if (disabled) await events.disabled(trx, identity);
        await events.updated(trx, identity);
        return identity;
      });
    },
  };
}

export type IdentityStore = ReturnType<typeof createIdentityStore>;
