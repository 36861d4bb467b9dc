/**
 * Management `/api-sessions`: every identity's API sessions, listed, read and ended. Tokens are
 * stored only as hashes, so `token` is empty here: an administrator can end a session but not
 * borrow it.
 */
import { empty, ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderApiSession } from '../../shared/render.js';

type Params = { id: string };

/** Registers the API session routes under the management base path. */
export function registerApiSessionRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/api-sessions`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.auth.listApiSessions({ query: listQuery(req) });
    return { body: listBody(page.apiSessions.map((s) => renderApiSession(s, '')), page.meta) };
  });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    const s = await clients.auth.getApiSession({ id: (req.params as Params).id });
    return { body: ok(renderApiSession(s, '')) };
  });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.auth.deleteApiSession({ id: (req.params as Params).id });
    return { body: empty() };
  });
}
