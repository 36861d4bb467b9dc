/**
 * Queries of configs.
 */
import { sql, type Selectable } from 'kysely';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { Config, ConfigInput, ConfigRef } from '../domain/config.js';
import { found, inTransaction, json, NOW, writeError, type ConfigsTable, type PolicyKysely } from './db.js';

/** What a filter on `/configs` may read (OpenZiti: name, type, data, plus the entity fields). */
export const CONFIG_FIELDS: FieldMap = {
  ...entityFields({ named: true }),
  type: field.string('config_type_id'),
  configTypeId: field.string('config_type_id'),
  data: field.map('data'),
};

type Row = Selectable<ConfigsTable> & { config_type_name: string };

function toDomain(r: Row): Config {
  return {
    id: r.id, name: r.name, configTypeId: r.config_type_id, configTypeName: r.config_type_name, data: r.data, tags: r.tags,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

export function createConfigStore(db: PolicyKysely) {
  const typeName = () => db.selectFrom('config_types as t').select('t.name').where('t.id', '=', sql.ref<string>('configs.config_type_id')).as('config_type_name');
  const select = () => db.selectFrom('configs').selectAll('configs').select(typeName);

  return {
    /** A page of configs, optionally only those of a type or attached to a service. */
    async list(plan: ListPlan, scope: { configTypeId?: string; serviceId?: string } = {}): Promise<{ items: Config[]; total: number }> {
      let from = db.selectFrom('configs');
      if (scope.configTypeId !== undefined) from = from.where('config_type_id', '=', scope.configTypeId);
      if (scope.serviceId !== undefined) {
        from = from.where('id', 'in', db.selectFrom('service_configs').select('config_id').where('service_id', '=', scope.serviceId));
      }
      const { rows, total } = await runList(from, plan, (qb) => qb.selectAll('configs').select(typeName));
      return { items: (rows as Row[]).map(toDomain), total };
    },

    async get(id: string): Promise<Config> {
      return toDomain(found(await select().where('id', '=', id).executeTakeFirst(), 'config', id) as Row);
    },

    /** The configs among `ids` that exist, in one query. */
    async findMany(ids: readonly string[]): Promise<Config[]> {
      if (ids.length === 0) return [];
      return (await select().where('configs.id', 'in', [...ids]).execute() as Row[]).map(toDomain);
    },

    /** The configs among `ids` with their types, for the rules of what holds them (checkConfigs). */
    async refs(ids: readonly string[]): Promise<ConfigRef[]> {
      if (ids.length === 0) return [];
      const rows = await db.selectFrom('configs').innerJoin('config_types as t', 't.id', 'configs.config_type_id')
        .select(['configs.id as id', 'configs.name as name', 'configs.config_type_id as configTypeId', 't.name as configTypeName', 't.target as target'])
        .where('configs.id', 'in', [...new Set(ids)]).execute();
      return rows as ConfigRef[];
    },

    async insert(id: string, input: ConfigInput): Promise<Config> {
      try {
        await db.insertInto('configs').values({ id, name: input.name, config_type_id: input.configTypeId, data: json(input.data), tags: json(input.tags) }).execute();
      } catch (err) {
        writeError(err, 'configs', input.name);
      }
      return this.get(id);
    },

    async update(id: string, input: ConfigInput): Promise<Config> {
      try {
        const r = await db.updateTable('configs').set({ name: input.name, data: json(input.data), tags: json(input.tags), updated_at: NOW }).where('id', '=', id).executeTakeFirst();
        found(Number(r.numUpdatedRows) > 0 || undefined, 'config', id);
      } catch (err) {
        writeError(err, 'configs', input.name);
      }
      return this.get(id);
    },

    /**
     * Deletes a config. Services using it simply lose it (the link rows cascade), as OpenZiti's
     * config store unlinks it from services (controller/db/config_store.go). Returns the ids of
     * the services that used it, so their change can be published.
     */
    async delete(id: string): Promise<{ deleted: boolean; serviceIds: string[] }> {
      return inTransaction(db, async (trx) => {
        const users = await trx.selectFrom('service_configs').select('service_id').where('config_id', '=', id).execute();
        if (users.length > 0) {
          await trx.updateTable('services').set({ config_ids: sql`array_remove(config_ids, ${id}::text)`, updated_at: NOW })
            .where('id', 'in', users.map((u) => u.service_id)).execute();
        }
        const r = await trx.deleteFrom('configs').where('id', '=', id).executeTakeFirst();
        return { deleted: Number(r.numDeletedRows) > 0, serviceIds: users.map((u) => u.service_id) };
      });
    },

    /** The ids of the services a config is attached to. */
    async serviceIds(id: string): Promise<string[]> {
      const rows = await db.selectFrom('service_configs').select('service_id').where('config_id', '=', id).execute();
      return rows.map((r) => r.service_id);
    },
  };
}

export type ConfigStore = ReturnType<typeof createConfigStore>;
