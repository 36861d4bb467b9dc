/**
 * Queries of config types.
 */
import { sql, type Selectable } from 'kysely';
import { ZitiError } from '@edge/errors';
import { isForeignKeyViolation, precompiled } from '@edge/db';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ConfigType, ConfigTypeInput, ConfigTypeTarget } from '../domain/config.js';
import { found, json, NOW, writeError, type ConfigTypesTable, type PolicyKysely } from './db.js';

/** What a filter on `/config-types` may read. */
export const CONFIG_TYPE_FIELDS: FieldMap = { ...entityFields({ named: true }), target: field.string('target') };

function toDomain(r: Selectable<ConfigTypesTable>): ConfigType {
  return { id: r.id, name: r.name, schema: r.schema, target: r.target as ConfigTypeTarget, tags: r.tags, createdAt: r.created_at, updatedAt: r.updated_at };
}

const toRow = (i: ConfigTypeInput) => ({ name: i.name, schema: json(i.schema), target: i.target, tags: json(i.tags) });

export function createConfigTypeStore(db: PolicyKysely) {
  // Read for every evaluated page that renders configs: built and planned once.
  const everyType = precompiled(0, () => db.selectFrom('config_types').selectAll());
  const typesByKey = precompiled(1, (keys: string[]) => db.selectFrom('config_types').selectAll()
    .where(sql<boolean>`(id = any(${keys}::text[]) or name = any(${keys}::text[]))`));
  return {
    async list(plan: ListPlan): Promise<{ items: ConfigType[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('config_types'), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<ConfigTypesTable>[]).map(toDomain), total };
    },

    async get(id: string): Promise<ConfigType> {
      return toDomain(found(await db.selectFrom('config_types').selectAll().where('id', '=', id).executeTakeFirst(), 'config type', id));
    },

    /** Config types by id or name (the `configTypes` parameter takes either, or `all`). */
    async findByIdOrName(keys: readonly string[]): Promise<ConfigType[]> {
      if (keys.length === 0) return [];
      const rows = keys.includes('all') ? await everyType(db) : await typesByKey(db, [...keys]);
      return (rows as Selectable<ConfigTypesTable>[]).map(toDomain);
    },

    async insert(id: string, input: ConfigTypeInput): Promise<ConfigType> {
      try {
        return toDomain(await db.insertInto('config_types').values({ id, ...toRow(input) }).returningAll().executeTakeFirstOrThrow());
      } catch (err) {
        writeError(err, 'configTypes', input.name);
      }
    },

    async update(id: string, input: ConfigTypeInput): Promise<ConfigType> {
      try {
        const row = await db.updateTable('config_types').set({ ...toRow(input), updated_at: NOW }).where('id', '=', id).returningAll().executeTakeFirst();
        return toDomain(found(row, 'config type', id));
      } catch (err) {
        writeError(err, 'configTypes', input.name);
      }
    },

    /** Deletes a config type; one that configs still use is a 409, as OpenZiti answers. */
    async delete(id: string): Promise<boolean> {
      try {
        const r = await db.deleteFrom('config_types').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      } catch (err) {
        if (isForeignKeyViolation(err)) {
          throw new ZitiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { causeMessage: `config type ${id} is in use by one or more configs` });
        }
        throw err;
      }
    },
  };
}

export type ConfigTypeStore = ReturnType<typeof createConfigTypeStore>;
