/**
 * The service-update marker (`GET /current-api-session/service-updates`): the time an
 * identity's service list last changed. The caller's current list is summarised as a digest
 * (services, permissions, posture queries and configs); the marker moves only when the digest
 * differs from the one last seen, so it moves on every relevant change and on nothing else.
 */
import { sql, type Generated, type Kysely } from 'kysely';
import type { SessionDb } from './store.js';

export interface ServiceMarkersTable {
  identity_id: string;
  digest: string;
  changed_at: Generated<Date>;
}

/** Creates the marker operations over the session schema. */
export function createServiceMarkers(db: Kysely<SessionDb>) {
  return {
    /** Records the digest seen now; the time the identity's list last changed. */
    async observe(identityId: string, digest: string): Promise<Date> {
      const row = await db.insertInto('service_markers').values({ identity_id: identityId, digest })
        .onConflict((oc) => oc.column('identity_id').doUpdateSet((eb) => ({
          digest: eb.ref('excluded.digest'),
          changed_at: sql<Date>`case when ${sql.ref('service_markers.digest')} = ${sql.ref('excluded.digest')} then ${sql.ref('service_markers.changed_at')} else date_trunc('milliseconds', now()) end`,
        })))
        .returning('changed_at').executeTakeFirstOrThrow();
      return row.changed_at;
    },
  };
}
