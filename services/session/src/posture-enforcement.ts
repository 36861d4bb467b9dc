/**
 * Sessions whose posture no longer passes end, as OpenZiti ends them: after an API session
 * reports posture data (postureDataUpdated in controller/model/posture_response_manager.go), and
 * when a change to a policy or posture check is reconciled (the posture cache's evaluation in
 * posture_response_model.go). A session passes while the posture checks of at least one policy
 * granting its type pass.
 */
import type { Logger } from '@edge/logging';
import { groupBy } from './domain/group-by.js';
import { evaluatePosture, type PostureData } from './domain/posture.js';
import type { Session } from './domain/session.js';
import type { SessionPeers } from './peers.js';
import type { SessionRecords } from './session-store.js';

export interface PostureEnforcementDeps {
  records: Pick<SessionRecords, 'ofApiSession' | 'deleteOf'>;
  peers: Pick<SessionPeers, 'identity' | 'grantedService' | 'postureChecks'>;
  /** What an API session has reported, with its MFA state. */
  postureData(apiSessionId: string): Promise<PostureData>;
  log: Logger;
}

export function createPostureEnforcement({ records, peers, postureData, log }: PostureEnforcementDeps) {
  /**
   * The sessions among `sessions` whose posture fails now. A session whose identity or access is
   * gone is not judged here: the access reconciliation ends it.
   */
  const failing = async (sessions: readonly Session[]): Promise<Session[]> => {
    const out: Session[] = [];
    const reported = new Map<string, Promise<PostureData>>();
    const dataOf = (apiSessionId: string) => {
      if (!reported.has(apiSessionId)) reported.set(apiSessionId, postureData(apiSessionId));
      return reported.get(apiSessionId)!;
    };
    for (const [identityId, own] of groupBy(sessions, (s) => s.identityId)) {
      const who = await peers.identity(identityId);
      if (!who) continue;
      for (const [serviceId, ofService] of groupBy(own, (s) => s.serviceId)) {
        const granted = await peers.grantedService(who, serviceId);
        if (!granted || granted.policies.every((p) => p.checkIds.length === 0)) continue;
        const policies = granted.policies.map((p) => ({ ...p, name: '' }));
        const checks = await peers.postureChecks(policies.flatMap((p) => p.checkIds));
        for (const s of ofService) {
          if (!evaluatePosture(policies, s.type, checks, await dataOf(s.apiSessionId)).passed) out.push(s);
        }
      }
    }
    return out;
  };

  return {
    failing,

    /** Ends the sessions of an API session whose posture no longer passes; how many ended. */
    async enforce(apiSessionId: string): Promise<number> {
      const ended = await records.deleteOf({ ids: (await failing(await records.ofApiSession(apiSessionId))).map((s) => s.id) });
      if (ended > 0) log.info({ apiSessionId, ended }, 'sessions ended: their posture checks no longer pass');
      return ended;
    },
  };
}

export type PostureEnforcement = ReturnType<typeof createPostureEnforcement>;
