/**
 * gRPC handlers of sessions and failed service requests: proto → sessions → proto.
 */
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { session as pb } from '@edge/proto';
import type { Sessions, SessionView } from '../sessions.js';
import { SESSION_FIELDS, type SessionRecords } from '../store/session.js';

function toProto({ session: s, edgeRouters }: SessionView): pb.Session {
  return {
    id: s.id, apiSessionId: s.apiSessionId, identityId: s.identityId, serviceId: s.serviceId, serviceName: s.serviceName,
    type: s.type, token: s.token, tagsJson: JSON.stringify(s.tags), edgeRouters, servicePolicyIds: s.servicePolicyIds,
    createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString(),
  };
}

export function createSessionRpcHandlers(sessions: Sessions, records: SessionRecords) {
  return {
    async CreateSession(req: pb.CreateSessionRequest__Output): Promise<pb.Session> {
      return toProto(await sessions.create(req));
    },
    async GetSession(req: pb.SessionRef__Output): Promise<pb.Session> {
      return toProto(await sessions.get(req.id, req.identityId));
    },
    async ListSessions(req: pb.ListSessionsRequest__Output): Promise<pb.ListSessionsResponse> {
      const plan = planList(SESSION_FIELDS, listParams(req.query));
      const { items, total } = await records.list(plan, req.identityId);
      return { sessions: (await sessions.withRouters(items)).map(toProto), meta: listMeta(plan, total, SESSION_FIELDS) };
    },
    async DeleteSession(req: pb.SessionRef__Output): Promise<pb.Empty> {
      await sessions.delete(req.id, req.identityId);
      return {};
    },
    async ListFailedServiceRequests(req: pb.ListFailedServiceRequestsRequest__Output): Promise<pb.ListFailedServiceRequestsResponse> {
      const failures = await records.failures(req.identityId);
      return {
        failedServiceRequestsJson: failures.map((f) => JSON.stringify({
          apiSessionId: f.apiSessionId, serviceId: f.serviceId, serviceName: f.serviceName, sessionType: f.sessionType,
          policyFailures: f.policyFailures, when: f.when.toISOString(),
        })),
      };
    },
  };
}
