/**
 * Client `/enroll*`: redeeming enrollment tokens without a session (as OpenZiti's
 * controller/internal/routes/enroll_router.go), and `/enroll/jwks`. Tokens travel differently
 * per endpoint (WIRE.md): in the JSON body for /enroll/ott, /enroll/ottca and /enroll/erott, in
 * the query for /enroll/updb and the generic /enroll, whose body is the PEM CSR itself. ottca and
 * ca enrollment use the client certificate presented at TLS instead of a CSR.
 */
import type { FastifyRequest } from 'fastify';
import { ok, empty } from '@edge/envelope';
import { parseBody, z } from '@edge/schemas';
import type { pki } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import { acceptedRanges, requireAcceptable } from '../../../http/accept.js';
import { clientCertPem } from '../../../http/client-cert.js';
import type { Result, Router } from '../../../http/route.js';

/** `ottEnrollmentRequest`. */
const ottEnrollmentRequest = z.object({ token: z.string().max(200).optional(), clientCsr: z.string().max(64_000).optional() });
/** `erOttEnrollmentRequest`. */
const erOttEnrollmentRequest = ottEnrollmentRequest.extend({ serverCsr: z.string().max(64_000).optional() });
/** `tokenEnrollmentRequest`: with a CSR, enrollment to a certificate; without, to token login. */
const tokenEnrollmentRequest = z.object({ clientCsr: z.string().max(64_000).optional() });
/** `routerExtendEnrollmentRequest`. */
const routerExtendEnrollmentRequest = z.object({ certCsr: z.string().max(64_000), serverCertCsr: z.string().max(64_000) });
/** The body of `/enroll/updb` (`username` is the enrollment's; one sent here is ignored, as OpenZiti does). */
const updbCredentials = z.object({ password: z.string().max(100), username: z.string().max(100).optional() });
/** `genericEnroll` as a JSON body of `/enroll`. */
const genericEnroll = z.object({
  clientCsr: z.string().max(64_000).optional(), certCsr: z.string().max(64_000).optional(), serverCertCsr: z.string().max(64_000).optional(),
  password: z.string().max(100).optional(), name: z.string().max(255).optional(),
});
/** Methods completed with the client certificate presented at TLS. */
const CA_CERT_METHODS = new Set(['ottca', 'ca']);

/** `nonceChallenge`. */
const nonceChallenge = z.object({ keyId: z.string().min(1).max(200), nonce: z.string().uuid() });

const query = (req: FastifyRequest) => req.query as Record<string, unknown>;
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** True when the client named application/json in Accept (enroll_router.go explicitJsonAccept). */
function asksForJson(req: FastifyRequest): boolean {
  return acceptedRanges(req)?.includes('application/json') ?? false;
}

/** What `/enroll` can answer: JSON, and the PEM chain for a PEM CSR redeeming an ott token. */
function enrollProduces(req: FastifyRequest, method: string): string[] {
  return typeof req.body === 'string' && method === 'ott' ? ['application/json', 'application/x-pem-file'] : ['application/json'];
}

/** `enrollmentCertsEnvelope`: only the fields this enrollment produced. */
function certsEnvelope(c: pki.EnrollmentCerts__Output): Result {
  const data: Record<string, string> = { cert: c.cert };
  if (c.serverCert) data.serverCert = c.serverCert;
  if (c.ca) data.ca = c.ca;
  return { body: ok(data) };
}

/** Registers the enroll routes under the client base path. */
export function registerEnrollRoutes(route: Router, base: string, clients: Clients): void {
  /** ottca or ca with the presented certificate; answered with the empty envelope. */
  async function withCaCertificate(req: FastifyRequest, method: string, token: string, requestedName = ''): Promise<Result> {
    await clients.pki.enrollWithCaCertificate({ method, token, certChainPem: clientCertPem(req), requestedName });
    return { body: empty() };
  }

  route('POST', `${base}/enroll`, 'public', async (req) => {
    const method = text(query(req).method) || 'ott';
    const token = text(query(req).token);
    requireAcceptable(req, enrollProduces(req, method));
    if (CA_CERT_METHODS.has(method)) {
      const body = typeof req.body === 'object' && req.body !== null ? parseBody(genericEnroll, req.body) : {};
      return withCaCertificate(req, method, token, body.name);
    }
    if (typeof req.body === 'string' || req.body === undefined) {
      // A PEM CSR as the body: OpenZiti's legacy path the C SDK and tunnelers use.
      const certs = await clients.pki.enrollWithCsr({ method, token, clientCsrPem: text(req.body), serverCsrPem: '' });
      // ott answers the PEM chain unless JSON is asked for; other methods always JSON
      if (certs.method === 'ott' && !asksForJson(req)) return { body: certs.cert, contentType: 'application/x-pem-file' };
      return certsEnvelope(certs);
    }
    const body = parseBody(genericEnroll, req.body);
    if (method === 'updb') {
      await clients.pki.enrollUpdb({ token, password: body.password ?? '' });
      return { body: empty() };
    }
    return certsEnvelope(await clients.pki.enrollWithCsr({
      method, token, clientCsrPem: body.clientCsr ?? body.certCsr ?? '', serverCsrPem: body.serverCertCsr ?? '',
    }));
  }, { body: genericEnroll, textBody: true });

  route('POST', `${base}/enroll/ott`, 'public', async (req) => {
    const body = parseBody(ottEnrollmentRequest, req.body);
    return certsEnvelope(await clients.pki.enrollWithCsr({ method: 'ott', token: body.token ?? '', clientCsrPem: body.clientCsr ?? '', serverCsrPem: '' }));
  }, { body: ottEnrollmentRequest });

  route('POST', `${base}/enroll/ottca`, 'public', async (req) => {
    const body = parseBody(ottEnrollmentRequest, req.body ?? {});
    return withCaCertificate(req, 'ottca', body.token ?? '');
  }, { body: ottEnrollmentRequest });

  route('POST', `${base}/enroll/ca`, 'public', async (req) => withCaCertificate(req, 'ca', ''));

  route('POST', `${base}/enroll/erott`, 'public', async (req) => {
    const body = parseBody(erOttEnrollmentRequest, req.body);
    return certsEnvelope(await clients.pki.enrollWithCsr({
      method: 'erott', token: body.token ?? '', clientCsrPem: body.clientCsr ?? '', serverCsrPem: body.serverCsr ?? '',
    }));
  });

  // The identity an external JWT (Authorization: Bearer) names enrolls itself.
  route('POST', `${base}/enroll/token`, 'public', async (req) => {
    const body = parseBody(tokenEnrollmentRequest, req.body ?? {});
    const auth = text(req.headers.authorization);
    const issuer = text(req.headers['ziti-token-issuer-id']);
    const r = await clients.auth.enrollWithToken({
      bearerToken: /^bearer /i.test(auth) ? auth.slice(7).trim() : '', issuerId: issuer.trim(), clientCsrPem: body.clientCsr ?? '',
    });
    return r.cert ? { body: ok({ cert: r.cert, ca: r.ca }) } : { body: empty() };
  }, { body: tokenEnrollmentRequest });

  // A router presenting its current client certificate at TLS gets new ones (no token).
  route('POST', `${base}/enroll/extend/router`, 'public', async (req) => {
    const body = parseBody(routerExtendEnrollmentRequest, req.body);
    return certsEnvelope(await clients.pki.extendRouterEnrollment({
      clientCertPem: clientCertPem(req), certCsrPem: body.certCsr, serverCertCsrPem: body.serverCertCsr,
    }));
  }, { body: routerExtendEnrollmentRequest });

  route('POST', `${base}/enroll/updb`, 'public', async (req) => {
    const body = parseBody(updbCredentials, req.body);
    await clients.pki.enrollUpdb({ token: text(query(req).token), password: body.password });
    return { body: empty() };
  }, { body: updbCredentials });

  // nonceSignature is answered as it is, without the envelope (the spec's 200 schema).
  route('POST', `${base}/enroll/challenge`, 'public', async (req) => {
    const body = parseBody(nonceChallenge, req.body);
    return { body: await clients.pki.signEnrollmentChallenge({ keyId: body.keyId, nonce: body.nonce }) };
  }, { body: nonceChallenge });

  route('GET', `${base}/enroll/jwks`, 'public', async () => {
    const { jwksJson } = await clients.pki.getEnrollmentJwks({});
    return { body: JSON.parse(jwksJson) as unknown };
  });
}
