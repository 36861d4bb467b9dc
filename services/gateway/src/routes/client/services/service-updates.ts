/**
 * `GET /current-api-session/service-updates`: when the caller's service list last changed. The
 * session service keeps the marker: it asks the policy service for a digest of the list the
 * caller would get now (services, permissions, posture queries, configs of every type, its own
 * config overrides), adds whether each posture query passes for the API session, and moves the
 * marker only when that changed.
 *
 * SDKs poll this every few seconds. An answer whose list names no posture checks is held (as the
 * service pages are, http/list-changes.ts): while no change of what the list shows is heard, and
 * for at most the hold's time, the next poll of the same identity and role attributes is
 * answered with it without a call. The marker moves on the first observation after a
 * change, held or not.
 */
import { ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import { createHeldAnswers, unheardListChanges, type ListChanges } from '../../../http/list-changes.js';
import type { Router } from '../../../http/route.js';
import { policyCaller } from '../../shared/caller.js';

/** Held answers kept at most; the oldest go first. */
const MAX_HELD = 50_000;

/** Registers the service update marker under one API's base path. */
export function registerServiceUpdateRoutes(route: Router, base: string, clients: Clients, changes: ListChanges = unheardListChanges()): void {
  const held = createHeldAnswers<{ lastChangeAt: string; namesPostureChecks: boolean }>(changes, MAX_HELD);
  route('GET', `${base}/current-api-session/service-updates`, 'session', async (_req, principal) => {
    const session = principal!.apiSession!;
    const who = policyCaller(principal);
    const marker = await held.through(JSON.stringify(who), () => clients.session.observeServiceList({ ...who, apiSessionId: session.id }), (m) => !m.namesPostureChecks);
    return { body: ok({ lastChangeAt: marker.lastChangeAt }) };
  });
}
