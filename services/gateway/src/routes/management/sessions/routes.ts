/**
 * Management `/sessions` (every identity's sessions: list, read, delete, route path),
 * `/identities/{id}/failed-service-requests` (session requests refused by posture checks) and
 * `/identities/{id}/posture-data` (what the identity's endpoints reported).
 */
import { empty, ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderManagementSession } from '../../client/sessions/map.js';

/** Registers the management session routes. */
export function registerSessionManagementRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/sessions`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.session.listSessions({ query: listQuery(req), identityId: '' });
    return { body: listBody(page.sessions.map(renderManagementSession), page.meta) };
  });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    return { body: ok(renderManagementSession(await clients.session.getSession({ id: idParam(req.params), identityId: '' }))) };
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
