/**
 * Creating, reading and ending sessions; the rules are OpenZiti's
 * (controller/model/session_manager.go): the service must be granted to the identity with the
 * session's type, the posture checks of at least one granting policy of that type must pass, and
 * an edge router must be shared by the identity's edge router policies and the service's service
 * edge router policies. Asking again for the same (API session, service, type) returns the same
 * session once the grant and the posture checks have been checked again: a session whose posture
 * fails now is ended instead.
 */
import { randomUUID } from 'node:crypto';
import { fieldError, notFound, ZitiError } from '@edge/errors';
import { newId } from '@edge/ids';
import type { Logger } from '@edge/logging';
import { evaluatePosture, type PostureData } from './domain/posture.js';
import { failureValues } from './domain/posture-failure.js';
import { assertPermitted, parseTags, sessionType, type Session } from './domain/session.js';
import type { EdgeRouterView, PeerIdentity, ServiceAccess, SessionPeers } from './peers/index.js';
import type { SessionRecords } from './store/session.js';

/** A session with the edge routers it may use now. */
export interface SessionView {
  session: Session;
  edgeRouters: EdgeRouterView[];
}

export interface CreateSessionInput {
  apiSessionId: string;
  identityId: string;
  serviceId: string;
  type: string;
  tagsJson: string;
}

export interface SessionsDeps {
  records: SessionRecords;
  peers: SessionPeers;
  /** The posture data an API session has reported. */
  postureData(apiSessionId: string): Promise<PostureData>;
  log: Logger;
}

export function createSessions({ records, peers, postureData, log }: SessionsDeps) {
  const identityOf = async (id: string): Promise<PeerIdentity> => {
    const who = await peers.identity(id);
    if (!who) throw notFound('identity', id);
    return who;
  };

  /** The edge routers the identity may use for the service (none when it or the service is gone). */
  const edgeRoutersOf = async (who: PeerIdentity | undefined, serviceId: string): Promise<EdgeRouterView[]> =>
    (who ? (await peers.access(who, serviceId, { edgeRouters: true }))?.edgeRouters ?? [] : []);

  /** Refuses a request whose posture fails, recording it for the identity; the passing policies. */
  const checkPosture = async (input: CreateSessionInput, type: Session['type'], access: ServiceAccess) => {
    const ofType = access.policies.filter((p) => p.type === type);
    // Without posture checks there is nothing to read or evaluate.
    if (ofType.every((p) => p.checkIds.length === 0)) return ofType.map((p) => p.id);
    const { checks } = access;
    const data = await postureData(input.apiSessionId);
    const now = new Date();
    const result = evaluatePosture(ofType, type, checks, data, now);
    if (result.passed) return result.passingPolicyIds;
    const policyFailures = result.failures.map((f) => ({
      ...f, checks: f.checks.map((c) => ({ ...c, ...failureValues(checks.get(c.postureCheckId)!, data, now) })),
    }));
    await records.recordFailure(input.identityId, {
      apiSessionId: input.apiSessionId, serviceId: access.id, serviceName: access.name, sessionType: type, policyFailures,
    });
    // As SessionManager.EvaluatePostureForService: the client learns which checks failed, not what they expect.
    const ids = result.failures.map((f) => f.policyId);
    throw new ZitiError('INVALID_POSTURE', {
      cause: {
        message: `Failed to pass posture checks for service policies: [${ids.join(' ')}]`,
        data: Object.fromEntries(result.failures.map((f) => [f.policyId, f.checks.map((c) => ({ id: c.postureCheckId, typeId: c.postureCheckType, isPassing: false }))])),
      },
    });
  };

  return {
    /**
     * One call to the policy service answers the grant, the posture checks of the granting
     * policies and the edge routers (or the access held for the same question); one statement
     * writes the session or reads the one that exists.
     */
    async create(input: CreateSessionInput): Promise<SessionView> {
      const type = sessionType(input.type);
      const tags = parseTags(input.tagsJson);
      if (!input.serviceId) throw fieldError('serviceId', 'is required', input.serviceId);
      const who = await identityOf(input.identityId);
      const access = await peers.access(who, input.serviceId, { grantedOnly: true, edgeRouters: true });
      if (!access) throw notFound('service', input.serviceId);
      assertPermitted(access.permissions, type, input.serviceId);
      let passing: string[];
      try {
        passing = await checkPosture(input, type, access);
      } catch (err) {
        // The session asked for again is ended instead.
        const existing = await records.findExisting(input.apiSessionId, input.serviceId, type);
        if (existing) await records.deleteOf({ ids: [existing.id] });
        throw err;
      }
      if (access.edgeRouters.length === 0) {
        // A session that exists is returned, with no routers; only a new one is refused.
        const existing = await records.findExisting(input.apiSessionId, input.serviceId, type);
        if (existing) return { session: existing, edgeRouters: [] };
        throw new ZitiError('NO_EDGE_ROUTERS_AVAILABLE');
      }
      const id = newId();
      const session = await records.create({
        id, token: randomUUID(), apiSessionId: input.apiSessionId, identityId: who.id, serviceId: access.id,
        serviceName: access.name, type, servicePolicyIds: passing, tags,
      });
      if (session.id === id) log.info({ sessionId: session.id, serviceId: session.serviceId, type }, 'session created');
      return { session, edgeRouters: access.edgeRouters };
    },

    async get(id: string, identityId: string): Promise<SessionView> {
      const session = await records.get(id, identityId);
      if (!session) throw notFound('session', id);
      return { session, edgeRouters: await edgeRoutersOf(await peers.identity(session.identityId), session.serviceId) };
    },

    /** Renders a page, reading each identity and each (identity, service) router set once. */
    async withRouters(sessions: Session[]): Promise<SessionView[]> {
      const routers = new Map<string, Promise<EdgeRouterView[]>>();
      const identities = new Map<string, Promise<PeerIdentity | undefined>>();
      return Promise.all(sessions.map(async (session) => {
        if (!identities.has(session.identityId)) identities.set(session.identityId, peers.identity(session.identityId));
        const key = `${session.identityId}\u0000${session.serviceId}`;
        if (!routers.has(key)) routers.set(key, identities.get(session.identityId)!.then((who) => edgeRoutersOf(who, session.serviceId)));
        return { session, edgeRouters: await routers.get(key)! };
      }));
    },

    async delete(id: string, identityId: string): Promise<void> {
      const session = await records.get(id, identityId);
      if (!session) throw notFound('session', id);
      await records.deleteOf({ ids: [id] });
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
