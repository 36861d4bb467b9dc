/**
 * Client `/current-api-session/certificates`: short-lived client certificates bound to the
 * caller's API session (as OpenZiti's current_api_session_router.go), owned by the auth service.
 */
import { ok, empty } from '@edge/envelope';
import { parseBody, z } from '@edge/schemas';
import type { auth } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { baseEntity, withFields } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';

const COLLECTION = 'current-api-session/certificates';

/** `currentApiSessionCertificateCreate`. */
const currentApiSessionCertificateCreate = z.object({ csr: z.string().max(64_000) });

/** `currentApiSessionCertificateDetail`. */
function render(c: auth.ApiSessionCertificate__Output) {
  return withFields(baseEntity({ ...c, tagsJson: '{}' }, COLLECTION), {
    subject: c.subject, fingerprint: c.fingerprint, validFrom: c.validFrom, validTo: c.validTo, certificate: c.certificate,
  });
}

/** Registers the routes under the client base path. */
export function registerApiSessionCertificateRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/current-api-session/certificates`;
  const ref = (req: { params: unknown }, apiSessionId: string) => ({ apiSessionId, id: (req.params as { id: string }).id });

  route('GET', url, 'session', async (req, principal) => {
    const page = await clients.auth.listApiSessionCertificates({ apiSessionId: principal!.apiSession!.id, query: listQuery(req) });
    return { body: listBody(page.certificates.map(render), page.meta) };
  });

  route('POST', url, 'session', async (req, principal) => {
    const body = parseBody(currentApiSessionCertificateCreate, req.body);
    const c = await clients.auth.createApiSessionCertificate({ apiSessionId: principal!.apiSession!.id, csrPem: body.csr });
    const data = { id: c.id, _links: { self: { href: `./${COLLECTION}/${c.id}` } }, certificate: c.certificate, cas: c.cas };
    return { status: 201, body: ok(data) };
  }, { body: currentApiSessionCertificateCreate, status: 201 });

  route('GET', `${url}/:id`, 'session', async (req, principal) => {
    return { body: ok(render(await clients.auth.getApiSessionCertificate(ref(req, principal!.apiSession!.id)))) };
  });

  route('DELETE', `${url}/:id`, 'session', async (req, principal) => {
    await clients.auth.deleteApiSessionCertificate(ref(req, principal!.apiSession!.id));
    return { body: empty() };
  });
}
