/**
 * The service-update marker of each identity: the digest of its service list last seen, and when
 * it last changed.
 */
import { sql, type Kysely } from 'kysely';
import { precompiled } from '@edge/db';
import type { SessionDb } from './db.js';

/** Creates the marker operations over the session schema. */
export function createServiceMarkers(db: Kysely<SessionDb>) {
  // Read on every poll of every SDK: built and compiled once, kept prepared by the server.
  const markerOf = precompiled(1, (identityId: string) => db.selectFrom('service_markers').select(['digest', 'changed_at']).where('identity_id', '=', identityId));
  return {
    /**
     * Records the digest seen now; the time the identity's list last changed. SDKs poll this, and
     * the list rarely changes: an unchanged digest is only read, not written again.
     */
    async observe(identityId: string, digest: string): Promise<Date> {
      const [seen] = await markerOf(db, identityId);
      if (seen?.digest === digest) return seen.changed_at;
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

export type ServiceMarkers = ReturnType<typeof createServiceMarkers>;
