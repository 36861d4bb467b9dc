/**
 * End-to-end helpers around third-party CAs: clients presenting a certificate at TLS,
 * certificate login, and creating and verifying a CA as an admin.
 */
import { createHttpClient, loadSpecValidator, type HttpClient } from '@edge/testing';
import { adminApi, M } from './admin-api.js';
import type { TestController } from './controller.js';
import { issueClientCert, type IssuedCert, type TestCa } from './test-ca.js';

const C = '/edge/client/v1';

/** Helpers over the controller and admin session (both read at call time). */
export function caClient(controller: () => TestController, session: () => string) {
  const api = adminApi(controller, session);

  /** An HTTPS client presenting `cert` at TLS. */
  function withCert(cert: IssuedCert): HttpClient {
    const c = controller();
    return createHttpClient({ baseUrl: c.running.url, ca: c.running.caPem, cert: cert.certPem, key: cert.keyPem, validator: loadSpecValidator() });
  }

  /** Runs `use` with a client presenting `cert`, closing it afterwards. */
  async function presenting<T>(cert: IssuedCert, use: (client: HttpClient) => Promise<T>): Promise<T> {
    const client = withCert(cert);
    try {
      return await use(client);
    } finally {
      client.close();
    }
  }

  /** The status of a certificate login. */
  function certLogin(cert: IssuedCert): Promise<{ status: number; identityId?: string }> {
    return presenting(cert, async (client) => {
      const r = await client.post(`${C}/authenticate?method=cert`, { body: {} });
      return { status: r.status, identityId: r.body?.data?.identityId };
    });
  }

  /** Retries a login until it has `status`: gateways reload the trusted bundle on CA events. */
  async function eventually(cert: IssuedCert, status: number): Promise<{ status: number; identityId?: string }> {
    let last = await certLogin(cert);
    for (let i = 0; i < 50 && last.status !== status; i++) {
      await new Promise((r) => setTimeout(r, 100));
      last = await certLogin(cert);
    }
    return last;
  }

  /** Creates a CA enabled for authentication and both enrollments, unless `extra` says otherwise. */
  async function createCa(name: string, ca: TestCa, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await api.post('/cas', {
      name, certPem: ca.certPem, isAuthEnabled: true, isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: true, identityRoles: [], ...extra,
    });
    return r.body.data.id as string;
  }

  /** Proves possession of the CA key with a certificate whose CN is the verification token. */
  async function verifyCa(id: string, ca: TestCa): Promise<void> {
    const token = (await api.get(`/cas/${id}`)).body.data.verificationToken as string;
    await controller().http.post(`${M}/cas/${id}/verify`, { rawBody: (await issueClientCert(ca, token)).certPem, headers: { 'content-type': 'text/plain' }, session: session(), expectStatus: 200 });
  }

  return { api, withCert, presenting, certLogin, eventually, createCa, verifyCa };
}
