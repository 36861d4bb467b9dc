/**
 * The client API is the listener's default handler, as in OpenZiti (controller/webapis/client-api.go):
 * the OpenZiti C SDK and ziti-edge-tunnel log in on the bare controller URL
 * (`POST /authenticate?method=cert`, `GET /current-api-session`, `POST /authenticate/mfa`), and
 * older SDKs use the legacy `/edge/v1` prefix. Every client route the gateway serves is
 * reachable through both forms with the same answer, and an SDK's whole first session works
 * through root paths alone.
 *
 * Regression: every root path but `/version` and `/.well-known/est/cacerts` answered 404, so
 * neither the C SDK nor the tunneler could log in.
 */
import { X509Certificate, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, loadSpecValidator, type HttpResult } from '@edge/testing';
import { adminApi } from './support/admin-api.js';
import { useController, type TestController } from './support/controller.js';
import { makeCsr } from './support/csr.js';
import { createPasswordIdentity } from './support/password-identity.js';

const C = '/edge/client/v1';
const LEGACY = '/edge/v1';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const api = adminApi(() => c, () => admin);

/** Operations that change the caller itself, so a second call answers differently: called apart. */
const isCallerState = (method: string, path: string) => (method === 'DELETE' && path === '/current-api-session') || path.startsWith('/current-identity/mfa');

/** Every client operation the gateway serves, from the document it builds from its route registry. */
async function servedClientOperations(): Promise<Array<{ method: string; path: string }>> {
  const doc = (await c.http.get(`${C}/docs/openapi.json`, { expectStatus: 200, skipValidation: true })).body as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })));
}

/** What identifies an answer, leaving out what differs between two calls (request ids, times). */
function answer(r: HttpResult) {
  const body = r.body as any;
  if (typeof body !== 'object' || body === null) return { status: r.status, type: r.headers['content-type'], text: r.text };
  const data = body.data;
  const shape = Array.isArray(data) ? data.map((d: any) => d?.id ?? typeof d) : data && typeof data === 'object' ? Object.keys(data).sort() : data;
  return { status: r.status, code: body.error?.code, field: body.error?.cause?.field, keys: Object.keys(body).sort(), data: shape };
}

/** The gateway's own "no such route" answer. */
const isUnmatched = (r: HttpResult) => r.status === 404 && String(r.body?.error?.causeMessage).startsWith('no route for');

describe('root and /edge/v1 paths are the client API', () => {
  let session: string;
  beforeAll(async () => {
    session = (await c.http.post(`${C}/authenticate?method=password`, { body: { username: 'admin', password: 'admin-password-1' }, expectStatus: 200 })).body.data.token;
  });

  it('answers every served client operation the same through /edge/client/v1, the root and /edge/v1', async () => {
    const ops = (await servedClientOperations()).filter((op) => !isCallerState(op.method, op.path));
    expect(ops.length).toBeGreaterThan(50);
    const differences: string[] = [];
    for (const op of ops) {
      const rel = op.path.replace(/\{[^}]+\}/g, () => `nx${randomBytes(4).toString('hex')}`);
      const body = ['POST', 'PUT', 'PATCH'].includes(op.method) ? {} : undefined;
      const call = (path: string) => c.http.request(op.method, path, { body, session, skipValidation: true });
      const canonical = await call(rel === '/' ? C : C + rel);
      for (const form of [rel, LEGACY + (rel === '/' ? '' : rel)]) {
        const other = await call(form);
        if (isUnmatched(other) || other.status === 405) differences.push(`${op.method} ${form}: not served (${other.status})`);
        else if (JSON.stringify(answer(other)) !== JSON.stringify(answer(canonical))) {
          differences.push(`${op.method} ${form}: ${JSON.stringify(answer(other))} != ${JSON.stringify(answer(canonical))}`);
        }
      }
    }
    expect(differences).toEqual([]);
  });

  it('answers GET / and /version with the version, and /.well-known/est/cacerts with the CA chain', async () => {
    for (const path of ['/', '/version', '/edge/v1', '/edge/v1/version']) {
      const r = await c.http.get(path, { expectStatus: 200 });
      expect(r.body.data.apiVersions.edge.v1.path).toBe(C);
    }
    const cacerts = await c.http.get('/.well-known/est/cacerts', { headers: { accept: 'application/pkcs7-mime' }, expectStatus: 200 });
    expect(cacerts.text).toBe((await c.http.get(`${C}/.well-known/est/cacerts`, { expectStatus: 200 })).text);
  });

  it('answers unknown root paths 404 naming them as sent, and a known path with a wrong method 405', async () => {
    for (const path of ['/nothing-here', '/edge/v1/nothing-here', '/edge/nothing', '/fabric/v1/routers', '/.well-known/other']) {
      const r = await c.http.get(path, { session, skipValidation: true });
      expect({ status: r.status, code: r.body.error.code, causeMessage: r.body.error.causeMessage }).toEqual({
        status: 404, code: 'NOT_FOUND', causeMessage: `no route for GET ${path}`,
      });
    }
    const r = await c.http.post('/version', { body: {}, skipValidation: true });
    expect({ status: r.status, code: r.body.error.code, allow: r.headers.allow }).toEqual({ status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET, HEAD' });
  });

  it('serves the caller operations through the root too, logging out last', async () => {
    const user = await createPasswordIdentity(c, admin, 'root-paths-self', 'root-paths-self-password');
    const started = await c.http.post('/current-identity/mfa', { session: user.token, expectStatus: 201 });
    expect(started.body.data.id).toEqual(expect.any(String));
    expect((await c.http.get('/edge/v1/current-identity/mfa', { session: user.token, expectStatus: 200 })).body.data.isVerified).toBe(false);
    await c.http.delete('/current-api-session', { session: user.token, expectStatus: 200 });
    await c.http.get('/current-api-session', { session: user.token, expectStatus: 401 });
  });
});

describe('an SDK session through root paths alone, as the C SDK makes it', () => {
  it('enrolls, logs in with its certificate, lists its services and gets a Dial session', async () => {
    const tag = 'csdk';
    const identity = (await api.post('/identities', { name: `${tag}-identity`, type: 'Device', isAdmin: false, roleAttributes: [tag], enrollment: { ott: true } })).body.data.id;
    const service = (await api.post('/services', { name: `${tag}-service`, encryptionRequired: true, roleAttributes: [tag] })).body.data.id;
    await api.post('/edge-routers', { name: `${tag}-router`, roleAttributes: [tag] });
    await api.post('/edge-router-policies', { name: `${tag}-erp`, semantic: 'AllOf', identityRoles: [`#${tag}`], edgeRouterRoles: [`#${tag}`] });
    await api.post('/service-edge-router-policies', { name: `${tag}-serp`, semantic: 'AllOf', serviceRoles: [`#${tag}`], edgeRouterRoles: [`#${tag}`] });
    await api.post('/service-policies', { name: `${tag}-dial`, type: 'Dial', semantic: 'AllOf', identityRoles: [`#${tag}`], serviceRoles: [`#${tag}`] });
    const token = (await api.get(`/identities/${identity}`)).body.data.enrollment.ott.token as string;

    // GET /version first; the SDK takes the legacy `edge` path but the tunneler keeps the bare URL
    expect((await c.http.get('/version', { expectStatus: 200 })).body.data.capabilities).not.toContain('OIDC_AUTH');
    await c.http.get('/.well-known/est/cacerts', { headers: { accept: 'application/pkcs7-mime' }, expectStatus: 200 });
    const { csrPem, keyPem } = await makeCsr(`${tag}-sdk`);
    const enrolled = await c.http.post(`/enroll?method=ott&token=${token}`, { rawBody: csrPem, headers: { 'content-type': 'text/plain' }, expectStatus: 200 });
    const certPem = enrolled.body.data.cert as string;
    expect(new X509Certificate(certPem).subject).toBe(`CN=${identity}`);

    const sdk = createHttpClient({ baseUrl: c.running.url, ca: c.running.caPem, cert: certPem, key: keyPem, validator: loadSpecValidator() });
    try {
      const login = await sdk.post('/authenticate?method=cert', {
        body: { sdkInfo: { type: 'ziti-sdk-c', version: '1.18.7' }, envInfo: { os: 'Linux', arch: 'x86_64' }, configTypes: ['intercept.v1', 'host.v1'] },
        expectStatus: 200,
      });
      const zt = login.body.data.token as string;
      expect(login.headers['zt-session']).toBe(zt);
      expect((await sdk.get('/current-api-session', { session: zt, expectStatus: 200 })).body.data.identity.id).toBe(identity);
      expect((await sdk.get('/current-identity', { session: zt, expectStatus: 200 })).body.data.id).toBe(identity);
      const services = await sdk.get('/services?limit=500', { session: zt, expectStatus: 200 });
      expect(services.body.data.map((s: { id: string }) => s.id)).toEqual([service]);
      await sdk.get('/current-api-session/service-updates', { session: zt, expectStatus: 200 });
      const dial = await sdk.post('/sessions', { body: { serviceId: service, type: 'Dial' }, session: zt, expectStatus: 201 });
      expect(dial.body.data.edgeRouters.map((e: { name: string }) => e.name)).toEqual([`${tag}-router`]);
      await sdk.delete('/current-api-session', { session: zt, expectStatus: 200 });
    } finally {
      sdk.close();
    }
  });
});
