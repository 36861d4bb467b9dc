/**
 * gRPC handlers of posture data: responses an endpoint submits, the state of posture queries for
 * an API session, and an identity's posture data.
 */
import type { session as pb } from '@edge/proto';
import { applyPostureResponse, endpointEvents, promptedServices } from '../domain/posture-response.js';
import { identityPostureData } from '../domain/posture-data.js';
import { queryState, type PostureData } from '../domain/posture.js';
import type { SessionPeers } from '../peers/index.js';
import type { PostureStore } from '../store/posture.js';
import { postureCheckDef } from '../posture-definition.js';

export interface PostureDeps {
  posture: PostureStore;
  peers: Pick<SessionPeers, 'apiSessionsOf' | 'identity' | 'grantedServices'>;
  /** What the API session reported, with its MFA state. */
  postureData(apiSessionId: string): Promise<PostureData>;
  /** Ends the API session's sessions whose posture no longer passes. */
  enforce(apiSessionId: string): Promise<unknown>;
}

export function createPostureRpcHandlers({ posture, peers, postureData, enforce }: PostureDeps) {
  return {
    async SubmitPostureResponses(req: pb.SubmitPostureResponsesRequest__Output): Promise<pb.PostureResponseResult> {
      const responses = req.responsesJson.map((j) => JSON.parse(j) as unknown);
      // Checked before anything is stored, so a bad bulk body changes nothing.
      responses.reduce<PostureData>((d, r, i) => applyPostureResponse(d, r, req.bulk ? `[${i}]` : ''), {});
      const now = new Date().toISOString();
      await posture.update(req.apiSessionId, req.identityId, (d) => responses.reduce<PostureData>((acc, r) => applyPostureResponse(acc, r, '', now), d));
      // As postureDataUpdated (controller/model/posture_response_manager.go): new data ends the
      // sessions it no longer lets through, before the endpoint hears back.
      await enforce(req.apiSessionId);
      // A wake or unlock cuts MFA passes short: answer the services whose queries it touched.
      const events = endpointEvents(responses);
      if (!events.woken && !events.unlocked) return { servicesJson: [] };
      const who = await peers.identity(req.identityId);
      if (!who) return { servicesJson: [] };
      const [{ services, checks }, data] = await Promise.all([peers.grantedServices(who), postureData(req.apiSessionId)]);
      return { servicesJson: promptedServices(services, checks, data, events).map((s) => JSON.stringify(s)) };
    },

    async EvaluatePostureQueries(req: pb.EvaluatePostureQueriesRequest__Output): Promise<pb.EvaluatePostureQueriesResponse> {
      if (req.postureChecks.length === 0) return { queries: [] };
      const checks = new Map(req.postureChecks.map((c) => [c.id, postureCheckDef(c)]));
      const data = await postureData(req.apiSessionId);
      return { queries: [...checks.values()].map((c) => ({ postureCheckId: c.id, ...queryState(c, data) })) };
    },

    async GetIdentityPostureData(req: pb.IdentityPostureDataRequest__Output): Promise<pb.IdentityPostureData> {
      const [reports, apiSessions] = await Promise.all([posture.ofIdentity(req.identityId), peers.apiSessionsOf(req.identityId)]);
      return { postureDataJson: JSON.stringify(identityPostureData(reports, apiSessions)) };
    },
  };
}
