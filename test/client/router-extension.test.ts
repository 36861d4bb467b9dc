/**
 * `POST /enroll/extend/router`: an enrolled router, presenting its current client certificate at
 * TLS, gets a new client and server certificate for its CSRs, and the router records the new one.
 */
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caClient } from '../support/ca-client.js';
import { startTestController, type TestController } from '../support/controller.js';
import { makeCsr } from '../support/csr.js';
import type { IssuedCert } from '../support/test-ca.js';

const C = '/edge/client/v1';
let c: TestController;
let admin: string;
const { api, presenting } = caClient(() => c, () => admin);

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint.replace(/:/g, '').toLowerCase();

/** Creates and enrolls a router; its client certificate (chain) and key. */
async function enrolledRouter(kind: 'edge-routers' | 'transit-routers', name: string): Promise<{ id: string; cert: IssuedCert }> {
  const id = (await api.post(`/${kind}`, { name })).body.data.id as string;
  const token = (await api.get(`/${kind}/${id}`)).body.data.enrollmentToken as string;
  const client = await makeCsr(id);
  const serverCsr = (await makeCsr(id)).csrPem;
  // edge routers through /enroll/erott, transit routers through the generic endpoint
  const r = kind === 'edge-routers'
    ? await c.http.post(`${C}/enroll/erott`, { body: { token, serverCsr, clientCsr: client.csrPem }, expectStatus: 200 })
    : await c.http.post(`${C}/enroll?method=trott&token=${token}`, { body: { certCsr: client.csrPem, serverCertCsr: serverCsr }, expectStatus: 200 });
  return { id, cert: { certPem: r.body.data.cert as string, keyPem: client.keyPem } };
}

describe('router enrollment extension', () => {
  for (const kind of ['edge-routers', 'transit-routers'] as const) {
    it(`issues new certificates to the ${kind.split('-')[0]} router presenting its certificate`, async () => {
      const { id, cert } = await enrolledRouter(kind, `extend-${kind}`);
      const next = await makeCsr(id);
      const r = await presenting(cert, async (client) => client.post(`${C}/enroll/extend/router`, {
        body: { certCsr: next.csrPem, serverCertCsr: (await makeCsr(id)).csrPem }, expectStatus: 200,
      }));
      expect(new X509Certificate(r.body.data.cert).subject).toBe(`CN=${id}`);
      expect(r.body.data.serverCert).toContain('BEGIN CERTIFICATE');
      const router = (await api.get(`/${kind}/${id}`)).body.data;
      expect(router.fingerprint).toBe(fingerprintOf(r.body.data.cert));
      expect(router.fingerprint).not.toBe(fingerprintOf(cert.certPem));

      // the old certificate no longer names the router
      const stale = await presenting(cert, (client) => client.post(`${C}/enroll/extend/router`, {
        body: { certCsr: next.csrPem, serverCertCsr: next.csrPem }, expectStatus: 401,
      }));
      expect(stale.body.error.code).toBe('UNAUTHORIZED');
    });
  }

  it('refuses a caller without a router certificate, a client CSR naming someone else and a malformed CSR', async () => {
    const { id, cert } = await enrolledRouter('edge-routers', 'extend-errors');
    const csrs = { certCsr: (await makeCsr(id)).csrPem, serverCertCsr: (await makeCsr(id)).csrPem };
    await c.http.post(`${C}/enroll/extend/router`, { body: csrs, expectStatus: 401 });
    await presenting(cert, async (client) => {
      const wrongCn = await client.post(`${C}/enroll/extend/router`, { body: { ...csrs, certCsr: (await makeCsr('someone-else')).csrPem }, expectStatus: 400 });
      expect(wrongCn.body.error.code).toBe('EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID');
      const malformed = await client.post(`${C}/enroll/extend/router`, { body: { ...csrs, serverCertCsr: 'nope' }, expectStatus: 400 });
      expect(malformed.body.error).toMatchObject({ code: 'MISSING_OR_INVALID_CSR', cause: { field: 'serverCertCsr' } });
      const missing = await client.post(`${C}/enroll/extend/router`, { body: { certCsr: csrs.certCsr }, expectStatus: 400 });
      expect(missing.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'serverCertCsr' } });
    });
    // refused attempts changed nothing
    expect((await api.get(`/edge-routers/${id}`)).body.data.fingerprint).toBe(fingerprintOf(cert.certPem));
  });
});
