/**
 * Queries of services and their configs.
 */
import { sql, type Expression, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { inChunks, precompiled } from '@edge/db';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import { roleCondition, type RoleColumns, type RoleSemantic } from '@edge/roles';
import type { RoleSplit } from '../domain/roles.js';
import type { Service, ServiceInput } from '../domain/service.js';
import { found, inTransaction, json, listRoleAttributes, NOW, writeError, type PolicyDb, type PolicyKysely, type ServicesTable } from './db.js';

/** What a filter on `/services` may read. */
export const SERVICE_FIELDS: FieldMap = {
  ...entityFields({ named: true }),
  roleAttributes: field.set('role_attributes'),
  configs: field.set('config_ids'),
  terminatorStrategy: field.string('terminator_strategy'),
  encryptionRequired: field.bool('encryption_required'),
  maxIdleTimeMillis: field.number('max_idle_time_millis'),
};

/** The columns role lists and role filters match services on. */
export const SERVICE_ROLE_COLUMNS: RoleColumns = { attributes: sql.ref('services.role_attributes'), id: sql.ref('services.id'), name: sql.ref('services.name') };

type Row = Selectable<ServicesTable>;

/** A services row as the domain sees it. */
export function toDomain(r: Row): Service {
  return {
    id: r.id, name: r.name, encryptionRequired: r.encryption_required, maxIdleTimeMillis: Number(r.max_idle_time_millis),
    terminatorStrategy: r.terminator_strategy, roleAttributes: r.role_attributes, configs: r.config_ids, tags: r.tags,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

function toRow(i: ServiceInput) {
  return {
    name: i.name, encryption_required: i.encryptionRequired, max_idle_time_millis: i.maxIdleTimeMillis,
    terminator_strategy: i.terminatorStrategy, role_attributes: i.roleAttributes, config_ids: [...new Set(i.configs)], tags: json(i.tags),
  };
}

async function linkConfigs(trx: PolicyKysely, serviceId: string, configIds: readonly string[]): Promise<void> {
  await trx.deleteFrom('service_configs').where('service_id', '=', serviceId).execute();
  if (configIds.length === 0) return;
  await trx.insertInto('service_configs')
    .columns(['service_id', 'config_id', 'config_type_id'])
    .expression(trx.selectFrom('configs').select([sql<string>`${serviceId}::text`.as('service_id'), 'id', 'config_type_id']).where('id', 'in', [...configIds]))
    .execute();
}

/** Narrowing of a service list: services of a config, or matching a condition (a policy's roles). */
export interface ServiceScope {
  configId?: string;
  where?: Expression<SqlBool>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export function createServiceStore(db: PolicyKysely) {
  // Per service, its configs of those types by the (service, type) key: the lateral's `offset 0`
  // keeps the planner from reading every service's configs for a page. Built and planned once:
  // it is read for every evaluated page.
  const configDataStatement = precompiled(2, (serviceIds: string[], configTypeIds: string[]) => (db as unknown as Kysely<Any>)
    .selectFrom(sql`unnest(${serviceIds}::text[])`.as('service') as never)
    .innerJoinLateral((eb: Any) => eb.selectFrom('service_configs as sc')
      .innerJoin('configs as c', 'c.id', 'sc.config_id')
      .innerJoin('config_types as t', 't.id', 'sc.config_type_id')
      .select(['sc.service_id as serviceId', 't.name as typeName', 'c.data as data'])
      .whereRef('sc.service_id', '=', sql.ref('service.service') as never).where('sc.config_type_id', '=', sql<string>`any(${configTypeIds}::text[])`)
      .offset(0).as('cfg'), (j: Any) => j.onTrue())
    .selectAll('cfg' as never));
  const select = () => db.selectFrom('services').selectAll('services');

  return {
    async list(plan: ListPlan, scope: ServiceScope = {}): Promise<{ items: Service[]; total: number }> {
      let from = db.selectFrom('services');
      if (scope.configId !== undefined) {
        from = from.where('id', 'in', db.selectFrom('service_configs').select('service_id').where('config_id', '=', scope.configId));
      }
      if (scope.where) from = from.where(scope.where);
      const { rows, total } = await runList(from, plan, (qb) => qb.selectAll('services'));
      return { items: (rows as Row[]).map(toDomain), total };
    },

    async find(id: string): Promise<Service | undefined> {
      const row = await select().where('id', '=', id).executeTakeFirst();
      return row && toDomain(row as Row);
    },

    async get(id: string): Promise<Service> {
      return found(await this.find(id), 'service', id);
    },

    /** Services by id, for display names. */
    async findMany(ids: readonly string[]): Promise<Service[]> {
      if (ids.length === 0) return [];
      return (await select().where('id', 'in', [...ids]).execute() as Row[]).map(toDomain);
    },

    /** Ids of services whose id or name is one of `refs` (for `@` roles). */
    async resolveRefs(refs: readonly string[]): Promise<Array<{ id: string; name: string }>> {
      if (refs.length === 0) return [];
      return db.selectFrom('services').select(['id', 'name']).where((eb) => eb.or([eb('id', 'in', [...refs]), eb('name', 'in', [...refs])])).execute();
    },

    async insert(id: string, input: ServiceInput): Promise<Service> {
      try {
        await inTransaction(db, async (trx) => {
          await trx.insertInto('services').values({ id, ...toRow(input) }).execute();
          await linkConfigs(trx, id, input.configs);
        });
      } catch (err) {
        writeError(err, 'services', input.name);
      }
      return this.get(id);
    },

    /** Many services without configs in a few statements (bulk import). */
    async insertMany(rows: ReadonlyArray<{ id: string; input: ServiceInput }>): Promise<void> {
      await inChunks(rows, (chunk) => db.insertInto('services').values(chunk.map(({ id, input }) => ({ id, ...toRow(input) })))
        .execute().catch((err: unknown) => writeError(err, 'services', chunk[0]!.input.name)));
    },

    async update(id: string, input: ServiceInput): Promise<Service> {
      try {
        await inTransaction(db, async (trx) => {
          const r = await trx.updateTable('services').set({ ...toRow(input), updated_at: NOW }).where('id', '=', id).executeTakeFirst();
          found(Number(r.numUpdatedRows) > 0 || undefined, 'service', id);
          await linkConfigs(trx, id, input.configs);
        });
      } catch (err) {
        writeError(err, 'services', input.name);
      }
      return this.get(id);
    },

    /** The ids of the first `limit` services, by id. */
    async ids(limit: number): Promise<string[]> {
      return (await db.selectFrom('services').select('id').orderBy('id').limit(limit).execute()).map((r) => r.id);
    },

    /** Ids of the services a role condition selects. */
    async matchIds(cond: Expression<SqlBool>): Promise<string[]> {
      return (await db.selectFrom('services').select('id').where(cond).orderBy('id').execute()).map((r) => r.id);
    },

    /** The services any of several role lists selects; none when there are none. */
    matchingAny(lists: Array<[RoleSplit, RoleSemantic]>): Expression<SqlBool> {
      if (lists.length === 0) return sql<SqlBool>`false`;
      return sql<SqlBool>`(${sql.join(lists.map(([roles, semantic]) => this.matching(roles, semantic)), sql` or `)})`;
    },

    /** The condition selecting the services a policy's (resolved) service roles match. */
    matching(roles: RoleSplit, semantic: RoleSemantic): Expression<SqlBool> {
      return roleCondition({ all: roles.all, attributes: roles.attrs, ids: roles.ids }, semantic, { attributes: SERVICE_ROLE_COLUMNS.attributes, id: SERVICE_ROLE_COLUMNS.id });
    },

    /**
     * The data of the configs of the given types attached to the given services, by service id
     * and config type name (a service's `config` map).
     */
    async configData(serviceIds: readonly string[], configTypeIds: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
      const out = new Map<string, Record<string, unknown>>();
      if (serviceIds.length === 0 || configTypeIds.length === 0) return out;
      const rows = await configDataStatement(db, [...serviceIds], [...configTypeIds]) as Array<{ serviceId: string; typeName: string; data: Record<string, unknown> }>;
      for (const r of rows) out.set(r.serviceId, { ...out.get(r.serviceId), [r.typeName]: r.data });
      return out;
    },

    async delete(id: string): Promise<boolean> {
      const r = await db.deleteFrom('services').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** The distinct role attributes of all services, as a list OpenZiti pages and filters. */
    listRoleAttributes: (plan: ListPlan) => listRoleAttributes(db, 'services', plan),
  };
}

export type ServiceStore = ReturnType<typeof createServiceStore>;
