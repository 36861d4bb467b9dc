/**
 * Client `/sessions`: the caller creates Dial/Bind sessions for its API session; it lists, reads
 * and deletes its own (an admin: everyone's, as OpenZiti's PublicQueryForIdentity).
 */
import { empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Principal } from '../../../http/session-cache.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderSession } from './map.js';
import { sessionCreate } from './schemas.js';

/** Whose sessions the caller sees: its own, or every one for an admin ('' = no restriction). */
const scope = (principal: Principal | undefined) => (principal!.isAdmin ? '' : principal!.apiSession!.identityId);

/** Registers the client session routes. */
export function registerClientSessionRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/sessions`;

  route('POST', url, 'session', async (req, principal) => {
    const body = parseBody(sessionCreate, req.body);
    const s = await clients.session.createSession({
      apiSessionId: principal!.apiSession!.id, identityId: principal!.apiSession!.identityId,
      serviceId: body.serviceId, type: body.type ?? 'Dial', tagsJson: JSON.stringify(body.tags ?? {}),
    });
    return { status: 201, body: ok(renderSession(s)) };
  }, { body: sessionCreate, status: 201 });

  route('GET', url, 'session', async (req, principal) => {
    const page = await clients.session.listSessions({ query: listQuery(req), identityId: scope(principal) });
    return { body: listBody(page.sessions.map(renderSession), page.meta) };
  });

  route('GET', `${url}/:id`, 'session', async (req, principal) => {
    return { body: ok(renderSession(await clients.session.getSession({ id: idParam(req.params), identityId: scope(principal) }))) };
  });

  route('DELETE', `${url}/:id`, 'session', async (req, principal) => {
    await clients.session.deleteSession({ id: idParam(req.params), identityId: scope(principal) });
    return { body: empty() };
  });
}
