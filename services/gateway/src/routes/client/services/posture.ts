/**
 * The caller's posture query states for the services of a client response: one call to the
 * session service per request, for every posture check the services name, and none when they
 * name none.
 */
import type { policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import { postureCheckIds, type QueryState } from '../../management/services/map.js';

/** The state of each posture query of `services` for the API session, by posture check id. */
export async function postureStates(clients: Clients, apiSessionId: string, services: policy.Service__Output[]): Promise<Map<string, QueryState>> {
  const ids = new Set(services.flatMap(postureCheckIds));
  if (ids.size === 0) return new Map();
  const r = await clients.session.evaluatePostureQueries({ apiSessionId, postureCheckIds: [...ids] });
  return new Map(r.queries.map((q) => [q.postureCheckId, { isPassing: q.isPassing, timeoutRemaining: Number(q.timeoutRemaining) }]));
}
