/**
 * `/current-identity/authenticators` on both APIs: the caller's own authenticators; changing a
 * password needs the current one, extending a certificate presenting it at TLS.
 */
import { empty, ok } from '@edge/envelope';
import { parseBody, z } from '@edge/schemas';
import type { Clients } from '../../clients.js';
import { clientCertPem } from '../../http/client-cert.js';
import type { Router } from '../../http/route.js';
import type { SessionCache } from '../../http/session-cache.js';
import { changeMask, renderAuthenticator, toUpdate } from '../management/authenticators/map.js';
import { authenticatorPatchWithCurrent, authenticatorUpdateWithCurrent } from '../management/authenticators/schemas.js';
import { listBody, listQuery } from './list.js';

type Params = { id: string };

/** `identityExtendEnrollmentRequest`. */
const identityExtendEnrollmentRequest = z.object({ clientCertCsr: z.string().max(64_000) });
/** `identityExtendValidateEnrollmentRequest`. */
const identityExtendValidateEnrollmentRequest = z.object({ clientCert: z.string().max(64_000) });

/**
 * Registers the caller's authenticator routes under one API's base path. A change drops the
 * caller's cached principals here, which carry its authenticators (current-identity).
 */
export function registerCurrentAuthenticatorRoutes(route: Router, base: string, clients: Clients, cache: SessionCache): void {
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
    cache.forgetIdentity(principal!.apiSession!.identityId);
    return { body: empty() };
  }, { body: authenticatorUpdateWithCurrent });

  route('POST', `${url}/:id/extend`, 'session', async (req, principal) => {
    const b = parseBody(identityExtendEnrollmentRequest, req.body);
    const issued = await clients.auth.extendCertAuthenticator({
      identityId: principal!.apiSession!.identityId, id: id(req), clientCertPem: clientCertPem(req), csrPem: b.clientCertCsr,
    });
    return { body: ok({ clientCert: issued.clientCert, ca: issued.ca }) };
  }, { body: identityExtendEnrollmentRequest });

  route('POST', `${url}/:id/extend-verify`, 'session', async (req, principal) => {
    const b = parseBody(identityExtendValidateEnrollmentRequest, req.body);
    await clients.auth.verifyExtendCertAuthenticator({ identityId: principal!.apiSession!.identityId, id: id(req), clientCertPem: b.clientCert });
    cache.forgetIdentity(principal!.apiSession!.identityId);
    return { body: empty() };
  }, { body: identityExtendValidateEnrollmentRequest });

  route('PATCH', `${url}/:id`, 'session', async (req, principal) => {
    const b = parseBody(authenticatorPatchWithCurrent, req.body);
    const mask = changeMask(req.body as Record<string, unknown>, false).filter((f) => f !== 'currentPassword');
    await clients.auth.updateAuthenticator(toUpdate(id(req), b, mask, principal!.apiSession!.identityId));
    cache.forgetIdentity(principal!.apiSession!.identityId);
    return { body: empty() };
  }, { body: authenticatorPatchWithCurrent });
}
