/**
 * Trusting the network before enrolling: `GET /network-jwts` on both APIs (a JWT signed by the
 * listener's key, as enrollment JWTs are) and `POST /enroll/challenge` (the nonce signed by the
 * key /enroll/jwks publishes).
 */
import { randomUUID, verify, X509Certificate } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { freePort } from '../support/infra.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
let c: TestController;

beforeAll(async () => {
  c = await startTestController({ env: { EDGE_HTTP_ADDR: `127.0.0.1:${await freePort()}` } });
});
afterAll(async () => c?.stop());

async function jwks() {
  return (await c.http.get(`${C}/enroll/jwks`, { expectStatus: 200 })).body as { keys: { kid: string; x5c: string[] }[] };
}

describe('network JWTs', () => {
  it('lists the default network JWT on both APIs without a session, verifiable with /enroll/jwks', async () => {
    const keys = await jwks();
    const origin = new URL(c.running.url).host;
    for (const base of [C, M]) {
      const r = await c.http.get(`${base}/network-jwts`, { expectStatus: 200 });
      expect(r.body.data).toHaveLength(1);
      expect(r.body.data[0].name).toBe('default');
      const token = r.body.data[0].token as string;
      expect(decodeProtectedHeader(token).kid).toBe(keys.keys[0]!.kid);
      const { payload } = await jwtVerify(token, createLocalJWKSet(keys as never));
      expect(payload).toMatchObject({ em: 'network', iss: `https://${origin}/`, sub: `https://${origin}/`, ctrls: [`https://${origin}`] });
      expect(payload.exp).toBeUndefined();
    }
  });
});

describe('enrollment challenge', () => {
  it('signs the nonce with the key the JWKS names, and names the CA pool', async () => {
    const { keys } = await jwks();
    const nonce = randomUUID();
    const r = await c.http.post(`${C}/enroll/challenge`, { body: { keyId: keys[0]!.kid, nonce }, expectStatus: 200 });
    expect(r.body.data).toBeUndefined();
    expect(r.body).toMatchObject({ algorithm: 'ES256', kid: keys[0]!.kid });
    const leaf = new X509Certificate(Buffer.from(keys[0]!.x5c[0]!, 'base64'));
    const signature = Buffer.from(r.body.signature as string, 'base64');
    expect(verify('sha256', Buffer.from(nonce), { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    expect(verify('sha256', Buffer.from(randomUUID()), { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(false);
    // the pool the listener's certificate chains to
    expect(r.body.caPool).toContain(c.running.caPem.trim().split('\n')[1]);
  });

  it('refuses an unknown key id or a nonce that is not a UUID', async () => {
    const { keys } = await jwks();
    const unknown = await c.http.post(`${C}/enroll/challenge`, { body: { keyId: 'abc123', nonce: randomUUID() }, expectStatus: 400 });
    expect(unknown.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'keyId' } });
    const bad = await c.http.post(`${C}/enroll/challenge`, { body: { keyId: keys[0]!.kid, nonce: 'not-a-uuid' }, expectStatus: 400 });
    expect(bad.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'nonce' } });
  });
});
