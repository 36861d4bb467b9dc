/**
 * Enrollment end to end, as an SDK does it: decode the JWT, check it against the key of the
 * certificate the listener presents and against /enroll/jwks, send a CSR made here, then log in
 * with the returned certificate over TLS. Responses are validated against the specs.
 */
import { X509Certificate } from 'node:crypto';
import { connect, type PeerCertificate } from 'node:tls';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, loadSpecValidator } from '@edge/testing';
import { startTestController, type TestController } from '../support/controller.js';
import { makeCsr } from '../support/csr.js';
import { freePort } from '../support/infra.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
let c: TestController;
let admin: string;

beforeAll(async () => {
  // a fixed port, so the advertised address (the JWT issuer) is the one clients reach
  c = await startTestController({ env: { EDGE_HTTP_ADDR: `127.0.0.1:${await freePort()}` } });
  admin = await c.login();
});
afterAll(async () => c?.stop());

async function createIdentity(name: string, enrollment: Record<string, unknown>): Promise<{ id: string; detail: any }> {
  const r = await c.http.post(`${M}/identities`, { body: { name, type: 'User', isAdmin: false, enrollment }, session: admin, expectStatus: 201 });
  const id = r.body.data.id as string;
  return { id, detail: (await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data };
}

/** The certificate the HTTPS listener presents, read off a TLS handshake. */
function presentedCertificate(): Promise<PeerCertificate> {
  const url = new URL(c.running.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', reject);
  });
}

async function verifyLikeAnSdk(jwt: string): Promise<Record<string, unknown>> {
  const presented = await presentedCertificate();
  const pem = `-----BEGIN CERTIFICATE-----\n${presented.raw.toString('base64')}\n-----END CERTIFICATE-----`;
  const header = decodeProtectedHeader(jwt);
  expect(header.alg).toBe('ES256');
  expect(header.kid).toBe(presented.fingerprint.replace(/:/g, '').toLowerCase());
  const { payload } = await jwtVerify(jwt, await importX509(pem, 'ES256'));
  const jwks = await c.http.get(`${C}/enroll/jwks`, { expectStatus: 200 });
  await jwtVerify(jwt, createLocalJWKSet(jwks.body));
  return payload;
}

describe('ott enrollment', () => {
  it('creates the identity with an ott enrollment whose JWT verifies against the listener certificate and /enroll/jwks', async () => {
    const { id, detail } = await createIdentity('ott-user', { ott: true });
    const ott = detail.enrollment.ott;
    expect(Object.keys(ott).sort()).toEqual(['expiresAt', 'id', 'jwt', 'token']);
    const minutes = (Date.parse(ott.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(178);
    expect(minutes).toBeLessThanOrEqual(180);
    const claims = await verifyLikeAnSdk(ott.jwt);
    expect(claims).toMatchObject({ em: 'ott', jti: ott.token, sub: id, iss: `https://${new URL(c.running.url).host}` });
    const list = await c.http.get(`${M}/identities/${id}/enrollments`, { session: admin, expectStatus: 200 });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([ott.id]);
  });

  it('enrolls with a PEM CSR through the generic endpoint, then logs in with the certificate over TLS', async () => {
    const { id, detail } = await createIdentity('ott-pem', { ott: true });
    const { csrPem, keyPem } = await makeCsr('ignored-by-the-controller');
    const r = await c.http.post(`${C}/enroll?method=ott&token=${detail.enrollment.ott.token}`, {
      rawBody: csrPem, headers: { 'content-type': 'text/plain', accept: 'application/x-pem-file' }, expectStatus: 200, skipValidation: true,
    });
    expect(r.headers['content-type']).toMatch(/^application\/x-pem-file/);
    const leaf = new X509Certificate(r.text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0]);
    expect(leaf.subject).toBe(`CN=${id}`);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);

    const after = (await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(after.enrollment).toEqual({});
    expect(after.authenticators.cert.fingerprint).toBe(leaf.fingerprint.replace(/:/g, '').toLowerCase());

    const tlsClient = createHttpClient({ baseUrl: c.running.url, ca: c.running.caPem, cert: r.text, key: keyPem, validator: loadSpecValidator() });
    try {
      const login = await tlsClient.post(`${C}/authenticate?method=cert`, { body: {}, expectStatus: 200 });
      expect(login.body.data.identityId).toBe(id);
      const me = await tlsClient.get(`${C}/current-identity`, { session: login.body.data.token, expectStatus: 200 });
      expect(me.body.data.id).toBe(id);
    } finally {
      tlsClient.close();
    }
    // without a certificate there is nothing to log in with
    await c.http.post(`${C}/authenticate?method=cert`, { body: {}, expectStatus: 401 });
  });

  // regression: isCertExtendable was always false and enrolled cert authenticators lacked
  // isIssuedByNetwork, so SDKs never renewed their certificates (controller/model/enrollment_mod_ott.go,
  // controller/internal/routes/authenticate_router.go)
  it('marks the certificate an ott enrollment issued as issued by the network, and its sessions as extendable', async () => {
    const { id, detail } = await createIdentity('ott-extendable', { ott: true });
    const { csrPem, keyPem } = await makeCsr('ott-extendable');
    const r = await c.http.post(`${C}/enroll/ott`, { body: { token: detail.enrollment.ott.token, clientCsr: csrPem }, expectStatus: 200 });
    const listed = await c.http.get(`${M}/authenticators?filter=${encodeURIComponent(`identityId = "${id}"`)}`, { session: admin, expectStatus: 200 });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ method: 'cert', isIssuedByNetwork: true });
    const tlsClient = createHttpClient({ baseUrl: c.running.url, ca: c.running.caPem, cert: r.body.data.cert, key: keyPem, validator: loadSpecValidator() });
    try {
      const login = await tlsClient.post(`${C}/authenticate?method=cert`, { body: {}, expectStatus: 200 });
      expect(login.body.data.isCertExtendable).toBe(true);
      const token = login.body.data.token as string;
      expect((await tlsClient.get(`${C}/current-api-session`, { session: token, expectStatus: 200 })).body.data.isCertExtendable).toBe(true);
      const mine = await tlsClient.get(`${C}/current-identity/authenticators`, { session: token, expectStatus: 200 });
      expect(mine.body.data.map((a: { method: string; isIssuedByNetwork: boolean }) => [a.method, a.isIssuedByNetwork])).toEqual([['cert', true]]);
    } finally {
      tlsClient.close();
    }
  });

  it('enrolls through /enroll/ott with the JSON envelope, for P-384 and RSA keys too', async () => {
    for (const kind of ['P-384', 'RSA'] as const) {
      const { id, detail } = await createIdentity(`ott-json-${kind}`, { ott: true });
      const { csrPem } = await makeCsr('x', kind);
      const r = await c.http.post(`${C}/enroll/ott`, { body: { token: detail.enrollment.ott.token, clientCsr: csrPem }, expectStatus: 200 });
      expect(new X509Certificate(r.body.data.cert).subject).toBe(`CN=${id}`);
      expect(r.body.data.ca).toContain('BEGIN CERTIFICATE');
    }
  });

  it('answers used, unknown and expired tokens and malformed CSRs with 400 and leaves the token usable after a bad CSR', async () => {
    const { detail } = await createIdentity('ott-errors', { ott: true });
    const token = detail.enrollment.ott.token as string;
    const post = (t: string, csr: string) => c.http.post(`${C}/enroll/ott`, { body: { token: t, clientCsr: csr } });
    const bad = await post(token, '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('MISSING_OR_INVALID_CSR');
    expect((await post('00000000-0000-4000-8000-000000000000', (await makeCsr('x')).csrPem)).body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
    expect((await post(token, (await makeCsr('x')).csrPem)).status).toBe(200);
    const reused = await post(token, (await makeCsr('x')).csrPem);
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');

    // an enrollment that expires a second from now
    const { id } = await createIdentity('ott-expiring', {});
    const soon = new Date(Date.now() + 1500).toISOString();
    await c.http.post(`${M}/enrollments`, { body: { method: 'ott', identityId: id, expiresAt: soon }, session: admin, expectStatus: 201 });
    const [e] = (await c.http.get(`${M}/identities/${id}/enrollments`, { session: admin, expectStatus: 200 })).body.data;
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await post(e.token, (await makeCsr('x')).csrPem);
    expect(expired.status).toBe(400);
    expect(expired.body.error.code).toBe('ENROLLMENT_EXPIRED');
  });

  // Regression: redeeming held a transaction across the call to the auth service; on the
  // embedded database that took the session the auth service needed, and everything hung.
  it('lets exactly one of concurrent redemptions of a token win, and keeps serving afterwards', async () => {
    const { id, detail } = await createIdentity('ott-race', { ott: true });
    const csrs = await Promise.all([1, 2, 3, 4].map(async () => (await makeCsr('x')).csrPem));
    const results = await Promise.all(csrs.map((clientCsr) => c.http.post(`${C}/enroll/ott`, { body: { token: detail.enrollment.ott.token, clientCsr } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
    const winner = new X509Certificate(results.find((r) => r.status === 200)!.body.data.cert);
    const after = (await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(after.authenticators.cert.fingerprint).toBe(winner.fingerprint.replace(/:/g, '').toLowerCase());
    expect(await c.login()).toBeTruthy();
  });
});

describe('updb enrollment', () => {
  it('sets the password under the auth policy rules, then the identity logs in with it', async () => {
    const { id, detail } = await createIdentity('updb-user', { updb: 'updb-user' });
    const updb = detail.enrollment.updb;
    expect((await verifyLikeAnSdk(updb.jwt)).em).toBe('updb');
    const short = await c.http.post(`${C}/enroll/updb?token=${updb.token}`, { body: { password: 'abc' } });
    expect(short.status).toBe(400);
    expect(short.body.error.cause.field).toBe('password');
    await c.http.post(`${C}/enroll/updb?token=${updb.token}`, { body: { password: 'a-good-password' }, expectStatus: 200 });
    const login = await c.http.post(`${C}/authenticate?method=password`, { body: { username: 'updb-user', password: 'a-good-password' }, expectStatus: 200 });
    expect(login.body.data.identityId).toBe(id);
    expect((await c.http.post(`${C}/enroll/updb?token=${updb.token}`, { body: { password: 'a-good-password' } })).body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
  });

  it('refuses an ottca enrollment naming an unknown CA and removes the identity again', async () => {
    const r = await c.http.post(`${M}/identities`, { body: { name: 'ottca-user', type: 'User', isAdmin: false, enrollment: { ottca: 'ca1' } }, session: admin, expectStatus: 400 });
    expect(r.body.error).toMatchObject({ code: 'REFERENCED_ENTITY_NOT_FOUND', cause: { field: 'enrollment.ottca' } });
    const list = await c.http.get(`${M}/identities?filter=${encodeURIComponent('name = "ottca-user"')}`, { session: admin, expectStatus: 200 });
    expect(list.body.data).toEqual([]);
  });
});

describe('management /enrollments', () => {
  it('lists with filters, reads, refreshes (the old JWT stops working), answers 409 for a duplicate and deletes', async () => {
    const { id, detail } = await createIdentity('mgmt-user', { ott: true });
    const old = detail.enrollment.ott;
    const dup = await c.http.post(`${M}/enrollments`, { body: { method: 'ott', identityId: id, expiresAt: new Date(Date.now() + 3600_000).toISOString() }, session: admin, expectStatus: 409 });
    expect(dup.body.error.code).toBe('ENROLLMENT_EXISTS');
    const list = await c.http.get(`${M}/enrollments?filter=${encodeURIComponent(`identity = "${id}" and method = "ott"`)}`, { session: admin, expectStatus: 200 });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id: old.id, identityId: id, identity: { id, name: 'mgmt-user' }, method: 'ott', token: old.token });
    expect(list.body.meta.filterableFields).toContain('expiresAt');

    const until = new Date(Date.now() + 7200_000).toISOString();
    await c.http.post(`${M}/enrollments/${old.id}/refresh`, { body: { expiresAt: until }, session: admin, expectStatus: 200 });
    const fresh = (await c.http.get(`${M}/enrollments/${old.id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(fresh.token).not.toBe(old.token);
    expect(Date.parse(fresh.expiresAt)).toBe(Date.parse(until));
    expect(decodeJwt(fresh.jwt).jti).toBe(fresh.token);
    await verifyLikeAnSdk(fresh.jwt);
    const stale = await c.http.post(`${C}/enroll/ott`, { body: { token: old.token, clientCsr: (await makeCsr('x')).csrPem } });
    expect(stale.body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');

    await c.http.delete(`${M}/enrollments/${old.id}`, { session: admin, expectStatus: 200 });
    await c.http.get(`${M}/enrollments/${old.id}`, { session: admin, expectStatus: 404 });
    const badField = await c.http.post(`${M}/enrollments`, { body: { method: 'updb', identityId: id, expiresAt: until }, session: admin, expectStatus: 400 });
    expect(badField.body.error.cause.field).toBe('username');
  });

  it('drops the enrollments of a deleted identity', async () => {
    const { id, detail } = await createIdentity('deleted-user', { ott: true });
    await c.http.delete(`${M}/identities/${id}`, { session: admin, expectStatus: 200 });
    await expect.poll(async () => (await c.http.get(`${M}/enrollments/${detail.enrollment.ott.id}`, { session: admin })).status).toBe(404);
  });
});

describe('edge router enrollment', () => {
  it('shows the enrollment on the router, enrolls with two CSRs, and re-enroll issues a new one', async () => {
    const created = await c.http.post(`${M}/edge-routers`, { body: { name: 'er-enroll' }, session: admin, expectStatus: 201 });
    const id = created.body.data.id as string;
    const before = (await c.http.get(`${M}/edge-routers/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(before.enrollmentJwt).toBeTruthy();
    expect(before.enrollmentCreatedAt).toBeTruthy();
    const claims = await verifyLikeAnSdk(before.enrollmentJwt);
    expect(claims).toMatchObject({ em: 'erott', sub: id, jti: before.enrollmentToken });

    const server = await makeCsr(id);
    const wrongCn = await c.http.post(`${C}/enroll/erott`, { body: { token: before.enrollmentToken, serverCsr: server.csrPem, clientCsr: (await makeCsr('nope')).csrPem } });
    expect(wrongCn.status).toBe(400);
    const r = await c.http.post(`${C}/enroll/erott`, { body: { token: before.enrollmentToken, serverCsr: server.csrPem, clientCsr: (await makeCsr(id)).csrPem }, expectStatus: 200 });
    expect(r.body.data.serverCert).toContain('BEGIN CERTIFICATE');
    const enrolled = (await c.http.get(`${M}/edge-routers/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(enrolled).toMatchObject({ isVerified: true, enrollmentJwt: null, enrollmentToken: null });
    expect(enrolled.fingerprint).toBe(new X509Certificate(r.body.data.cert).fingerprint.replace(/:/g, '').toLowerCase());

    await c.http.post(`${M}/edge-routers/${id}/re-enroll`, { session: admin, expectStatus: 200 });
    const again = (await c.http.get(`${M}/edge-routers/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(again).toMatchObject({ isVerified: false, fingerprint: '', certPem: null });
    expect(again.enrollmentToken).toBeTruthy();
    const old = await c.http.post(`${C}/enroll/erott`, { body: { token: before.enrollmentToken, serverCsr: server.csrPem, clientCsr: (await makeCsr(id)).csrPem } });
    expect(old.body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
  });

  it('gives transit routers their enrollment too', async () => {
    const created = await c.http.post(`${M}/transit-routers`, { body: { name: 'tr-enroll' }, session: admin, expectStatus: 201 });
    const d = (await c.http.get(`${M}/transit-routers/${created.body.data.id}`, { session: admin, expectStatus: 200 })).body.data;
    expect((await verifyLikeAnSdk(d.enrollmentJwt)).em).toBe('trott');
  });
});
