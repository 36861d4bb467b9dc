/**
 * `/current-api-session/certificates`: short-lived client certificates for a CSR, bound to the
 * API session that asked: only it lists, reads and deletes them, and they go when it ends.
 */
import { X509Certificate } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { makeCsr } from '../support/csr.js';
import { TEST_DATABASE_URL } from '../support/infra.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const C = '/edge/client/v1';
const URL_ = `${C}/current-api-session/certificates`;
let c: TestController;
let admin: string;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

/** How many certificates the auth schema holds for an API session. */
async function storedFor(apiSessionId: string): Promise<number> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    const r = await db.query(`SELECT count(*)::int AS n FROM "${c.prefix}_auth".api_session_certificates WHERE api_session_id = $1`, [apiSessionId]);
    return r.rows[0].n as number;
  } finally {
    await db.end();
  }
}

describe('API session certificates', () => {
  it('issues a 12-hour certificate for the CSR, lists, reads and deletes it for its own session only', async () => {
    const { token } = await createPasswordIdentity(c, admin, 'sess-cert-user', 'a-good-password');
    const { csrPem } = await makeCsr('sdk-session');
    const created = await c.http.post(URL_, { body: { csr: csrPem }, session: token, expectStatus: 201 });
    const { id, certificate, cas } = created.body.data as { id: string; certificate: string; cas: string };
    expect(cas).toContain('BEGIN CERTIFICATE');
    const cert = new X509Certificate(certificate);
    expect(cert.subject).toBe('CN=sdk-session');
    const lifetimeH = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 3_600_000;
    expect(lifetimeH).toBeGreaterThan(11.9);
    expect(lifetimeH).toBeLessThan(12.1);

    const list = await c.http.get(URL_, { session: token, expectStatus: 200 });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([id]);
    const detail = await c.http.get(`${URL_}/${id}`, { session: token, expectStatus: 200 });
    expect(detail.body.data).toMatchObject({ id, certificate, subject: 'CN=sdk-session', fingerprint: cert.fingerprint.replace(/:/g, '').toLowerCase() });
    expect((await c.http.get(`${URL_}?filter=${encodeURIComponent('subject contains "nothing"')}`, { session: token, expectStatus: 200 })).body.data).toEqual([]);

    // another session of the same identity sees none of them
    const other = await c.login('sess-cert-user', 'a-good-password');
    expect((await c.http.get(URL_, { session: other, expectStatus: 200 })).body.data).toEqual([]);
    await c.http.get(`${URL_}/${id}`, { session: other, expectStatus: 404 });
    // 404 for another session's certificate (the spec lists no 404 for this delete)
    expect((await c.http.delete(`${URL_}/${id}`, { session: other, skipValidation: true })).status).toBe(404);
    await c.http.get(`${URL_}/${id}`, { session: token, expectStatus: 200 });

    await c.http.delete(`${URL_}/${id}`, { session: token, expectStatus: 200 });
    await c.http.get(`${URL_}/${id}`, { session: token, expectStatus: 404 });
  });

  it('refuses a malformed CSR and a missing session, and goes with its API session', async () => {
    const { token } = await createPasswordIdentity(c, admin, 'sess-cert-end', 'a-good-password');
    const bad = await c.http.post(URL_, { body: { csr: 'not a csr' }, session: token, expectStatus: 400 });
    expect(bad.body.error).toMatchObject({ code: 'MISSING_OR_INVALID_CSR', cause: { field: 'csr' } });
    const missing = await c.http.post(URL_, { body: {}, session: token, expectStatus: 400 });
    expect(missing.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'csr' } });
    await c.http.post(URL_, { body: { csr: (await makeCsr('x')).csrPem }, expectStatus: 401 });

    await c.http.post(URL_, { body: { csr: (await makeCsr('x')).csrPem }, session: token, expectStatus: 201 });
    const sessionId = (await c.http.get(`${C}/current-api-session`, { session: token, expectStatus: 200 })).body.data.id as string;
    expect(await storedFor(sessionId)).toBe(1);
    await c.http.delete(`${C}/current-api-session`, { session: token, expectStatus: 200 });
    expect(await storedFor(sessionId)).toBe(0);
  });
});
