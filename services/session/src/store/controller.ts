/**
 * Queries of the controller registry.
 */
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { notFound } from '@edge/errors';
import type { ControllersTable, SessionDb } from './db.js';

export type ControllerRow = Selectable<ControllersTable>;

/** Creates the controller registry store over the session schema. */
export function createControllerStore(db: Kysely<SessionDb>) {
  return {
    /** Registers a controller instance, or marks a known one online again. */
    async upsertController(c: { id: string; name: string; apiAddress: string; certPem: string }): Promise<ControllerRow> {
      return db
        .insertInto('controllers')
        .values({ id: c.id, name: c.name, api_address: c.apiAddress, cert_pem: c.certPem, is_online: true })
        .onConflict((oc) =>
          oc.column('id').doUpdateSet({ name: c.name, api_address: c.apiAddress, cert_pem: c.certPem, is_online: true, last_joined_at: sql`now()`, updated_at: sql`now()` }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async markOffline(id: string): Promise<void> {
      const r = await db.updateTable('controllers').set({ is_online: false, updated_at: sql`now()` }).where('id', '=', id).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw notFound('controller', id);
    },

    listControllers(): Promise<ControllerRow[]> {
      return db.selectFrom('controllers').selectAll().orderBy('name').orderBy('id').execute();
    },
  };
}

export type ControllerStore = ReturnType<typeof createControllerStore>;
