/**
 * Every query on controller settings.
 */
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { entityFields, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ControllerSetting, ControllerSettingChanges, ControllerSettingInput } from '../domain/controller-setting.js';
import type { ControllerSettingsTable, SessionDb } from './db.js';

/** What a filter on `/controller-settings` may read. */
export const CONTROLLER_SETTING_FIELDS: FieldMap = entityFields();

function toDomain(r: Selectable<ControllerSettingsTable>): ControllerSetting {
  return {
    id: r.id,
    oidc: { redirectUris: r.oidc_redirect_uris, postLogoutUris: r.oidc_post_logout_uris },
    tags: r.tags,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Creates the controller settings store over the session schema. */
export function createControllerSettingRecords(db: Kysely<SessionDb>) {
  return {
    /** Inserts an override; false when the controller has one already. */
    async insert(id: string, s: ControllerSettingInput): Promise<boolean> {
      const rows = await db.insertInto('controller_settings').values({
        id, oidc_redirect_uris: s.oidc.redirectUris, oidc_post_logout_uris: s.oidc.postLogoutUris, tags: JSON.stringify(s.tags),
      }).onConflict((oc) => oc.column('id').doNothing()).returning('id').execute();
      return rows.length > 0;
    },

    async get(id: string): Promise<ControllerSetting | undefined> {
      const r = await db.selectFrom('controller_settings').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toDomain(r);
    },

    /** Writes the given fields only, so concurrent patches of different fields both land; false when gone. */
    async update(id: string, c: ControllerSettingChanges): Promise<boolean> {
      const r = await db.updateTable('controller_settings').set({
        ...(c.redirectUris !== undefined ? { oidc_redirect_uris: c.redirectUris } : {}),
        ...(c.postLogoutUris !== undefined ? { oidc_post_logout_uris: c.postLogoutUris } : {}),
        ...(c.tags !== undefined ? { tags: JSON.stringify(c.tags) } : {}),
        updated_at: sql<Date>`date_trunc('milliseconds', now())`,
      }).where('id', '=', id).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async list(plan: ListPlan): Promise<{ items: ControllerSetting[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('controller_settings'), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<ControllerSettingsTable>[]).map(toDomain), total };
    },

    /** Whether a controller with this id ever registered. */
    async controllerExists(id: string): Promise<boolean> {
      return (await db.selectFrom('controllers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    },

    /** Deletes an override; false when there was none. */
    async delete(id: string): Promise<boolean> {
      const r = await db.deleteFrom('controller_settings').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

export type ControllerSettingRecords = ReturnType<typeof createControllerSettingRecords>;
