/**
 * Every query of the session service.
 */
import type { IntegrityRunsTable } from '../integrity.js';
import type { ServiceMarkersTable } from './service-marker.js';
import type { PostureDataTable } from './posture.js';
import type { TerminatorsTable } from './terminator.js';
import type { ControllerSettingsTable } from './controller-setting.js';
import type { ColumnType, Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { notFound } from '@edge/errors';
import type { FailedServiceRequestsTable, SessionsTable } from './session.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

interface ControllersTable {
  id: string;
  name: string;
  api_address: string;
  cert_pem: string;
  is_online: boolean;
  last_joined_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The session schema as kysely sees it. */
export interface SessionDb {
  controllers: ControllersTable;
  integrity_runs: IntegrityRunsTable;
  sessions: SessionsTable;
  failed_service_requests: FailedServiceRequestsTable;
  service_markers: ServiceMarkersTable;
  posture_data: PostureDataTable;
  terminators: TerminatorsTable;
  controller_settings: ControllerSettingsTable;
}

export type ControllerRow = Selectable<ControllersTable>;

/** Creates the store over the service's own schema. */
export function createSessionStore(db: Kysely<SessionDb>) {
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

export type SessionStore = ReturnType<typeof createSessionStore>;
