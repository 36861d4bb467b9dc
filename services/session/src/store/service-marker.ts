/**
 * The service-update marker (`GET /current-api-session/service-updates`): the time an
 * identity's service list last changed. The caller's current list is summarised as a digest
 * (services, permissions, posture queries and configs, from the policy service, and whether each
 * posture query passes for the API session, evaluated here); the marker moves only when the
 * digest differs from the one last seen, so it moves on every relevant change and on nothing else.
 */
import { createHash } from 'node:crypto';
import { sql, type Generated, type Kysely } from 'kysely';
import type { session as pb } from '@edge/proto';
import { queryState, type PostureData } from '../domain/posture.js';
import type { SessionPeers } from '../peers/policy.js';
import { postureCheckDef } from '../posture-definition.js';
import type { SessionDb } from './controller.js';

export interface ServiceMarkersTable {
  identity_id: string;
  digest: string;
  changed_at: Generated<Date>;
}

/** Creates the marker operations over the session schema. */
export function createServiceMarkers(db: Kysely<SessionDb>) {
  return {
    /**
     * Records the digest seen now; the time the identity's list last changed. SDKs poll this, and
     * the list rarely changes: an unchanged digest is only read, not written again.
     */
    async observe(identityId: string, digest: string): Promise<Date> {
      const seen = await db.selectFrom('service_markers').select(['digest', 'changed_at']).where('identity_id', '=', identityId).executeTakeFirst();
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

export interface ServiceUpdateDeps {
  markers: ReturnType<typeof createServiceMarkers>;
  peers: Pick<SessionPeers, 'serviceListDigest'>;
  postureData(apiSessionId: string): Promise<PostureData>;
}

/** Observes the caller's service list now: one call to the policy service, posture evaluated here. */
export function createServiceUpdates({ markers, peers, postureData }: ServiceUpdateDeps) {
  return async (req: pb.ObserveServiceListRequest__Output): Promise<Date> => {
    const list = await peers.serviceListDigest(req);
    // Whether each posture query passes is part of the list (SDKs refresh on it); the seconds
    // left of a timeout are not, they change every second.
    const data = list.postureChecks.length ? await postureData(req.apiSessionId) : {};
    const passing = list.postureChecks.map((c) => [c.id, queryState(postureCheckDef(c), data).isPassing]);
    return markers.observe(req.identityId, createHash('sha256').update(JSON.stringify([list.digest, passing])).digest('hex'));
  };
}
