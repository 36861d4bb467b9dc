/**
 * Management `/sessions` (every identity's sessions: list, read, delete, route path),
 * `/identities/{id}/failed-service-requests` (session requests refused by posture checks) and
 * `/identities/{id}/posture-data` (what the identity's endpoints reported).
 */
import { empty, ok } from '@edge/envelope';
import type { session } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { everyRow, listBody, listQuery } from '../../shared/list.js';
import { renderManagementSession } from '../../client/sessions/map.js';

/** The names of the service policies a page of sessions names, read in one call. */
async function policyNames(clients: Clients, sessions: session.Session__Output[]): Promise<Map<string, string>> {
  const ids = [...new Set(sessions.flatMap((s) => s.servicePolicyIds))];
  if (ids.length === 0) return new Map();
  const filter = `id in [${ids.map((i) => JSON.stringify(i)).join(', ')}]`;
  const policies = await everyRow(filter, async (query) => {
    const page = await clients.policy.listServicePolicies({ query });
    return { rows: page.servicePolicies, meta: page.meta };
  });
  return new Map(policies.map((p) => [p.id, p.name]));
}

/** Renders sessions as the management API shows them. */
async function renderSessions(clients: Clients, sessions: session.Session__Output[]) {
  const names = await policyNames(clients, sessions);
  return sessions.map((s) => renderManagementSession(s, names));
}

/** Registers the management session routes. */
export function registerSessionManagementRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/sessions`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.session.listSessions({ query: listQuery(req), identityId: '' });
    return { body: listBody(await renderSessions(clients, page.sessions), page.meta) };
  });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    const [one] = await renderSessions(clients, [await clients.session.getSession({ id: idParam(req.params), identityId: '' })]);
    return { body: ok(one) };
  });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.session.deleteSession({ id: idParam(req.params), identityId: '' });
    return { body: empty() };
  });

  // The routers a session's circuits cross; circuits are the routers' business, so a session
  // known here has none yet.
  route('GET', `${url}/:id/route-path`, 'admin', async (req) => {
    await clients.session.getSession({ id: idParam(req.params), identityId: '' });
    return { body: ok({ routePath: [] }) };
  });

  route('GET', `${base}/identities/:id/failed-service-requests`, 'admin', async (req) => {
    const id = idParam(req.params);
    await clients.identity.getIdentity({ id });
    const r = await clients.session.listFailedServiceRequests({ identityId: id });
    return { body: ok(r.failedServiceRequestsJson.map((j) => JSON.parse(j) as unknown)) };
  });

  route('GET', `${base}/identities/:id/posture-data`, 'admin', async (req) => {
    const id = idParam(req.params);
    await clients.identity.getIdentity({ id });
    const r = await clients.session.getIdentityPostureData({ identityId: id });
    return { body: ok(JSON.parse(r.postureDataJson) as unknown) };
  });
}
