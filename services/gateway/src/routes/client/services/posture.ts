/**
 * The caller's posture query states for the services of a client response: one call to the
 * session service per request, with every posture check the services name as the policy service
 * defined them, and none when they name none.
 */
import type { policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { QueryState } from '../../management/services/map.js';

/** The state of each posture query of `services` for the API session, by posture check id. */
export async function postureStates(clients: Clients, apiSessionId: string, services: policy.Service__Output[]): Promise<Map<string, QueryState>> {
  const checks = new Map(services.flatMap((s) => s.postureQueries.flatMap((g) => g.checks)).map((c) => [c.id, c]));
  if (checks.size === 0) return new Map();
  const r = await clients.session.evaluatePostureQueries({ apiSessionId, postureChecks: [...checks.values()] });
  return new Map(r.queries.map((q) => [q.postureCheckId, { isPassing: q.isPassing, timeoutRemaining: Number(q.timeoutRemaining) }]));
}
