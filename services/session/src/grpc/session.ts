/**
 * gRPC handlers of sessions and failed service requests: proto → sessions → proto.
 */
import { listMeta, listParams, planList } from '@edge/zitiql';
import { isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { session as pb } from '@edge/proto';
import { answeredHandlerError, assertBatchSize, classifyHandlerError, decodePrincipal, encodeZitiError, runWithContext, type RequestContext } from '@edge/rpc';
import type { Sessions, SessionView } from '../sessions.js';
import { SESSION_FIELDS, type SessionRecords } from '../store/session.js';

/** An item without a request: refused as an empty CreateSession would be. */
const NO_REQUEST: pb.CreateSessionRequest__Output = { apiSessionId: '', identityId: '', serviceId: '', type: '', tagsJson: '' };

function toProto({ session: s, edgeRouters }: SessionView): pb.Session {
  return {
    id: s.id, apiSessionId: s.apiSessionId, identityId: s.identityId, serviceId: s.serviceId, serviceName: s.serviceName,
    type: s.type, token: s.token, tagsJson: JSON.stringify(s.tags), edgeRouters, servicePolicyIds: s.servicePolicyIds,
    createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString(),
  };
}

/**
 * The context one item of a batch is created in: what the metadata of a single CreateSession
 * would have given (its caller's principal, its request id), within the batch's deadline.
 */
function itemContext(item: pb.CreateSessionsItem__Output, batch: RequestContext): RequestContext {
  const principal = decodePrincipal(item.principal);
  return { requestId: item.requestId || batch.requestId, deadline: batch.deadline, ...(principal ? { principal, actorId: principal.identityId } : {}) };
}

export function createSessionRpcHandlers(sessions: Sessions, records: SessionRecords, log: Logger) {
  /**
   * An item's error as CreateSession would have answered it: a ZitiError as is, anything else
   * unexplained. It is logged as CreateSession would log it, once per batch: a failure the items
   * share (the policy service unavailable to the whole batch) is one error, not one per item.
   */
  const itemErrors = () => {
    const logged = new Set<unknown>();
    return (thrown: unknown, requestId: string): Buffer => {
      const err = logged.has(thrown) ? classifyHandlerError(thrown, 'session') : answeredHandlerError(thrown, 'session', log, { method: 'CreateSessions', requestId });
      logged.add(thrown);
      return isZitiError(err) ? encodeZitiError(err) : Buffer.alloc(0);
    };
  };

  return {
    async CreateSession(req: pb.CreateSessionRequest__Output): Promise<pb.Session> {
      return toProto(await sessions.create(req));
    },
    /** Each item under its own caller, concurrently: their calls and statements are shared (see createBatcher). */
    async CreateSessions(req: pb.CreateSessionsRequest__Output, ctx: RequestContext): Promise<pb.CreateSessionsResponse> {
      assertBatchSize(req.items, 'items');
      const itemError = itemErrors();
      const results = await Promise.all(req.items.map((item) => {
        const itemCtx = itemContext(item, ctx);
        return runWithContext(itemCtx, () => sessions.create(item.request ?? NO_REQUEST)).then(
          (view): pb.CreateSessionResult => ({ session: toProto(view) }),
          (err: unknown): pb.CreateSessionResult => ({ error: itemError(err, itemCtx.requestId) }),
        );
      }));
      return { results };
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
