/**
 * Sessions judged again, in batches: whether each should still exist. As OpenZiti's policy
 * enforcer (controller/model/policy_enforcer.go), access is re-evaluated rather than inferred
 * from the change that prompted it. A batch costs one call per owner whatever its size: the
 * identities (identity service), their grants among the batch's services (policy service), and
 * when asked the API sessions (auth service) and the posture checks involved (policy service).
 */
import { groupBy } from './domain/group-by.js';
import { evaluatePosture, type PostureData } from './domain/posture.js';
import type { Session } from './domain/session.js';
import { grantKey, type Grant, type PeerApiSession, type SessionPeers } from './peers/index.js';

/** A session that should no longer exist, and why. */
export interface Stale {
  id: string;
  why: string;
}

/** What else a judgement looks at besides identity and access. */
export interface JudgeOptions {
  /** API sessions that are gone (a reconciliation: events cover it otherwise). */
  apiSessions?: boolean;
  /** Posture checks that no longer pass. */
  posture?: boolean;
}

export interface ReevaluationDeps {
  peers: Pick<SessionPeers, 'identities' | 'grants' | 'apiSessions'>;
  /** What API sessions reported about their endpoints, by API session id. */
  reported(apiSessionIds: string[]): Promise<Map<string, PostureData>>;
}

type Granted = { session: Session; grant: Grant };

export function createReevaluation({ peers, reported }: ReevaluationDeps) {
  /** The sessions whose identity is gone or disabled, or whose type is no longer granted; the rest with their grant. */
  async function access(sessions: readonly Session[], stale: Stale[]): Promise<Granted[]> {
    const identities = await peers.identities(sessions.map((s) => s.identityId));
    const live = sessions.filter((s) => {
      const who = identities.get(s.identityId);
      if (who && !who.disabled) return true;
      stale.push({ id: s.id, why: `identity ${s.identityId} ${who ? 'is disabled' : 'does not exist'}` });
      return false;
    });
    const queries = [...groupBy(live, (s) => s.identityId)].map(([id, own]) => ({ who: identities.get(id)!, serviceIds: [...new Set(own.map((s) => s.serviceId))] }));
    const grants = await peers.grants(queries);
    const granted: Granted[] = [];
    for (const session of live) {
      const grant = grants.get(grantKey(session.identityId, session.serviceId));
      if (grant?.permissions.includes(session.type)) granted.push({ session, grant });
      else stale.push({ id: session.id, why: `identity ${session.identityId} may no longer ${session.type.toLowerCase()} service ${session.serviceId}` });
    }
    return granted;
  }

  /** The sessions among `granted` whose posture checks fail now (a session passes while one granting policy's checks pass). */
  async function posture(granted: readonly Granted[], apiSessions: Map<string, PeerApiSession>, stale: Stale[]): Promise<void> {
    const checked = granted.filter((g) => g.grant.policies.some((p) => p.checkIds.length > 0));
    if (checked.length === 0) return;
    const checks = new Map(checked.flatMap((g) => [...g.grant.checks]));
    const data = await reported(checked.map((g) => g.session.apiSessionId));
    const now = new Date();
    for (const { session, grant } of checked) {
      const passedAt = apiSessions.get(session.apiSessionId)?.mfaPassedAt;
      const reports = data.get(session.apiSessionId) ?? {};
      if (!evaluatePosture(grant.policies, session.type, checks, passedAt ? { ...reports, mfa: { passedAt } } : reports, now).passed) {
        stale.push({ id: session.id, why: `its posture checks for service ${session.serviceId} no longer pass` });
      }
    }
  }

  return {
    /** The sessions among `sessions` that should no longer exist, each with why. */
    async staleAmong(sessions: readonly Session[], opts: JudgeOptions = {}): Promise<Stale[]> {
      if (sessions.length === 0) return [];
      const stale: Stale[] = [];
      let granted = await access(sessions, stale);
      const needApiSessions = opts.apiSessions || (opts.posture && granted.some((g) => g.grant.policies.some((p) => p.checkIds.length > 0)));
      const apiSessions = needApiSessions ? await peers.apiSessions(granted.map((g) => g.session.apiSessionId)) : new Map<string, PeerApiSession>();
      if (opts.apiSessions) {
        granted = granted.filter(({ session }) => {
          if (apiSessions.has(session.apiSessionId)) return true;
          stale.push({ id: session.id, why: `API session ${session.apiSessionId} does not exist` });
          return false;
        });
      }
      if (opts.posture) await posture(granted, apiSessions, stale);
      return stale;
    },
  };
}

export type Reevaluation = ReturnType<typeof createReevaluation>;
