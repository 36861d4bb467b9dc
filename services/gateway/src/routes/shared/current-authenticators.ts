/**
 * `/current-identity/authenticators` on both APIs: the caller's own authenticators; changing a
 * password needs the current one.
 */
import { empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../clients.js';
import type { Router } from '../../http/route.js';
import { changeMask, renderAuthenticator, toUpdate } from '../management/authenticators/map.js';
import { authenticatorPatchWithCurrent, authenticatorUpdateWithCurrent } from '../management/authenticators/schemas.js';
import { listBody, listQuery } from './list.js';

type Params = { id: string };

/** Registers the caller's authenticator routes under one API's base path. */
export function registerCurrentAuthenticatorRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/current-identity/authenticators`;
  const id = (req: { params: unknown }) => (req.params as Params).id;

  route('GET', url, 'session', async (req, principal) => {
    const page = await clients.auth.listAuthenticators({ query: listQuery(req), ownerIdentityId: principal!.apiSession!.identityId });
    return { body: listBody(page.authenticators.map(renderAuthenticator), page.meta) };
  });

  route('GET', `${url}/:id`, 'session', async (req, principal) => {
    const a = await clients.auth.getAuthenticator({ id: id(req), ownerIdentityId: principal!.apiSession!.identityId });
    return { body: ok(renderAuthenticator(a)) };
  });

  route('PUT', `${url}/:id`, 'session', async (req, principal) => {
    const b = parseBody(authenticatorUpdateWithCurrent, req.body);
    await clients.auth.updateAuthenticator(toUpdate(id(req), b, changeMask(b, true), principal!.apiSession!.identityId));
    return { body: empty() };
  });

  route('PATCH', `${url}/:id`, 'session', async (req, principal) => {
    const b = parseBody(authenticatorPatchWithCurrent, req.body);
    const mask = changeMask(req.body as Record<string, unknown>, false).filter((f) => f !== 'currentPassword');
    await clients.auth.updateAuthenticator(toUpdate(id(req), b, mask, principal!.apiSession!.identityId));
    return { body: empty() };
  });
}
