/**
 * Sessions whose posture no longer passes end, as OpenZiti ends them: after an API session
 * reports posture data (postureDataUpdated in controller/model/posture_response_manager.go), and
 * when a change to a policy or posture check is reconciled (the posture cache's evaluation in
 * posture_response_model.go). A session passes while the posture checks of at least one policy
 * granting its type pass.
 */
import type { Logger } from '@edge/logging';
import type { Reevaluation } from './reevaluation.js';
import type { SessionRecords } from './store/session.js';

export interface PostureEnforcementDeps {
  records: Pick<SessionRecords, 'ofApiSession' | 'deleteOf'>;
  reevaluation: Pick<Reevaluation, 'staleAmong'>;
  log: Logger;
}

export function createPostureEnforcement({ records, reevaluation, log }: PostureEnforcementDeps) {
  return {
    /**
     * Ends the sessions of an API session whose posture no longer passes (or whose access went
     * meanwhile), judged together in one batch; how many ended.
     */
    async enforce(apiSessionId: string): Promise<number> {
      const stale = await reevaluation.staleAmong(await records.ofApiSession(apiSessionId), { posture: true });
      const ended = await records.deleteOf({ ids: stale.map((s) => s.id) });
      if (ended > 0) log.info({ apiSessionId, ended }, 'sessions ended: their posture checks no longer pass');
      return ended;
    },
  };
}

export type PostureEnforcement = ReturnType<typeof createPostureEnforcement>;
