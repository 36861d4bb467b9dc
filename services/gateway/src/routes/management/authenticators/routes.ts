/**
 * Management `/authenticators` (list, create, detail, replace, patch, delete) and
 * `/identities/{id}/authenticators`.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { changeMask, renderAuthenticator, toUpdate } from './map.js';
import { authenticatorCreate, authenticatorPatch, authenticatorUpdate, reEnroll, requestExtendAuthenticator } from './schemas.js';

type Params = { id: string };

/** Registers the authenticator routes under the management base path. */
export function registerAuthenticatorRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/authenticators`;
  const id = (req: { params: unknown }) => (req.params as Params).id;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.auth.listAuthenticators({ query: listQuery(req) });
    return { body: listBody(page.authenticators.map(renderAuthenticator), page.meta) };
  });

  route('GET', `${base}/identities/:id/authenticators`, 'admin', async (req) => {
    const page = await clients.auth.listAuthenticators({ query: listQuery(req), ownerIdentityId: id(req) });
    return { body: listBody(page.authenticators.map(renderAuthenticator), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const b = parseBody(authenticatorCreate, req.body);
    const r = await clients.auth.createAuthenticator({
      identityId: b.identityId, method: b.method, username: b.username ?? '', password: b.password ?? '', certPem: b.certPem ?? '', tagsJson: JSON.stringify(b.tags ?? {}),
    });
    return { status: 201, body: created(r.id, 'authenticators') };
  }, { body: authenticatorCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderAuthenticator(await clients.auth.getAuthenticator({ id: id(req) }))) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    const b = parseBody(authenticatorUpdate, req.body);
    await clients.auth.updateAuthenticator(toUpdate(id(req), b, changeMask(b, true)));
    return { body: empty() };
  }, { body: authenticatorUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const b = parseBody(authenticatorPatch, req.body);
    await clients.auth.updateAuthenticator(toUpdate(id(req), b, changeMask(req.body as Record<string, unknown>, false)));
    return { body: empty() };
  }, { body: authenticatorPatch });

  route('POST', `${url}/:id/request-extend`, 'admin', async (req) => {
    const b = parseBody(requestExtendAuthenticator, req.body ?? {});
    await clients.auth.requestExtendAuthenticator({ id: id(req), rollKeys: b.rollKeys ?? false });
    return { body: empty() };
  }, { body: requestExtendAuthenticator });

  // A UPDB authenticator becomes a UPDB enrollment and a certificate one an OTT enrollment
  // (as reEnrollAuthenticator in the spec); the authenticator goes once the enrollment exists.
  route('POST', `${url}/:id/re-enroll`, 'admin', async (req) => {
    const b = parseBody(reEnroll, req.body);
    const a = await clients.auth.getAuthenticator({ id: id(req) });
    const e = await clients.pki.createEnrollment({
      method: a.method === 'updb' ? 'updb' : 'ott', identityId: a.identityId, username: a.method === 'updb' ? a.username : undefined, expiresAt: b.expiresAt,
    });
    await clients.auth.deleteAuthenticator({ id: a.id });
    return { status: 201, body: created(e.id, 'enrollments') };
  }, { body: reEnroll, status: 201 });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.auth.deleteAuthenticator({ id: id(req) });
    return { body: empty() };
  });
}
