/**
 * `GET /current-api-session/service-updates`: when the caller's service list last changed. The
 * session service keeps the marker: it asks the policy service for a digest of the list the
 * caller would get now (services, permissions, posture queries, configs of its API session's
 * config types, its own config overrides), adds whether each posture query passes for the API
 * session, and moves the marker only when that changed.
 */
import { ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { policyCaller } from '../../shared/caller.js';

/** Registers the service update marker under one API's base path. */
export function registerServiceUpdateRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/current-api-session/service-updates`, 'session', async (_req, principal) => {
    const session = principal!.apiSession!;
    const who = policyCaller(principal);
    const marker = await clients.session.observeServiceList({ ...who, apiSessionId: session.id, configTypes: session.configTypes });
    return { body: ok({ lastChangeAt: marker.lastChangeAt }) };
  });
}
