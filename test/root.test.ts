import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from './support/controller.js';

let c: TestController;
beforeAll(async () => {
  c = await startTestController();
});
afterAll(async () => c?.stop());

describe('version and other public routes', () => {
  it.each(['/version', '/edge/client/v1/version', '/edge/management/v1/version', '/edge/client/v1', '/edge/management/v1/'])(
    'serves version information on %s without a session',
    async (path) => {
      const r = await c.http.get(path, { expectStatus: 200 });
      expect(r.body.data.apiVersions.edge.v1.path).toBe('/edge/client/v1');
      expect(r.body.data.apiVersions['edge-management'].v1.path).toBe('/edge/management/v1');
      expect(r.body.data.apiVersions['edge-client'].v1.apiBaseUrls[0]).toMatch(/^https:\/\/.+\/edge\/client\/v1$/);
      expect(r.body.data.runtimeVersion).toBe(process.version);
    },
  );

  it('lists the edge protocols it listens with, without a session', async () => {
    const r = await c.http.get('/edge/client/v1/protocols', { expectStatus: 200 });
    expect(r.body.data).toEqual({ https: { address: c.running.config.http.advertisedAddress } });
  });

  it('advertises no capability it does not serve', async () => {
    const r = await c.http.get('/edge/client/v1/enumerated-capabilities', { expectStatus: 200 });
    expect(r.body.data).toEqual([]);
    const v = await c.http.get('/version', { expectStatus: 200 });
    expect(v.body.data.capabilities).not.toContain('OIDC_AUTH');
  });

  it('serves the CA chain as base64 PKCS#7 that openssl parses', async () => {
    const r = await c.http.get('/.well-known/est/cacerts', { headers: { accept: 'application/pkcs7-mime' }, expectStatus: 200 });
    expect(r.headers['content-type']).toContain('application/pkcs7-mime');
    const der = Buffer.from(r.text.replace(/\s+/g, ''), 'base64');
    const out = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs', '-noout'], { input: der }).toString();
    expect(out.match(/subject=/g)?.length).toBeGreaterThanOrEqual(2);
    // The chain verifies the certificate the HTTPS listener serves: the client was built with it.
    const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: der }).toString();
    expect(c.running.caPem.replace(/\s+/g, '')).toContain(pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0].replace(/\s+/g, ''));
  });

  it('answers unknown routes with the 404 envelope', async () => {
    for (const path of ['/edge/client/v1/no-such-thing', '/edge/management/v1/identities/x/nope', '/nothing']) {
      const r = await c.http.get(path, { skipValidation: true });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
      expect(r.body.error.requestId).toBeTruthy();
      expect(r.body.meta).toEqual({ apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' });
    }
  });

  it('refuses a body over 1 MiB with 413 before authentication', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), type: 'User', isAdmin: false });
    const r = await c.http.post('/edge/management/v1/identities', { rawBody: big, skipValidation: true });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });
});
