/**
 * The service-update marker (`GET /current-api-session/service-updates`): the time an
 * identity's service list last changed. The caller's current list is summarised as a digest
 * (services, permissions, posture queries and configs, from the policy service, and whether each
 * posture query passes for the API session, evaluated here); the marker moves only when the
 * digest differs from the one last seen, so it moves on every relevant change and on nothing else.
 */
import { createHash } from 'node:crypto';
import type { session as pb } from '@edge/proto';
import { queryState, type PostureData } from './domain/posture.js';
import type { SessionPeers } from './peers/index.js';
import { postureCheckDef } from './posture-definition.js';
import type { ServiceMarkers } from './store/service-marker.js';

export interface ServiceUpdateDeps {
  markers: ServiceMarkers;
  peers: Pick<SessionPeers, 'serviceListDigest'>;
  postureData(apiSessionId: string): Promise<PostureData>;
}

/** What an observation answers: when the list last changed, and whether it names posture checks. */
export interface ServiceListObservation {
  lastChangeAt: Date;
  namesPostureChecks: boolean;
}

/** Observes the caller's service list now: one call to the policy service, posture evaluated here. */
export function createServiceUpdates({ markers, peers, postureData }: ServiceUpdateDeps) {
  return async (req: pb.ObserveServiceListRequest__Output): Promise<ServiceListObservation> => {
    const list = await peers.serviceListDigest(req);
    // Whether each posture query passes is part of the list (SDKs refresh on it); the seconds
    // left of a timeout are not, they change every second.
    const data = list.postureChecks.length ? await postureData(req.apiSessionId) : {};
    const passing = list.postureChecks.map((c) => [c.id, queryState(postureCheckDef(c), data).isPassing]);
    const lastChangeAt = await markers.observe(req.identityId, createHash('sha256').update(JSON.stringify([list.digest, passing])).digest('hex'));
    return { lastChangeAt, namesPostureChecks: list.postureChecks.length > 0 };
  };
}

export type ServiceUpdates = ReturnType<typeof createServiceUpdates>;
