/**
 * Large JSON answers are gzipped for the clients that accept it, as the SDKs' HTTP clients do
 * (the C SDK sends `Accept-Encoding: gzip, deflate`): a client's service list, a management page.
 * Without the header, or for a small answer, the bytes are the JSON itself.
 */
import { request } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const M = '/edge/management/v1';
const C = '/edge/client/v1';
const SERVICES = 30;
let c: TestController;
let admin: string;
let client: { id: string; token: string };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** A GET as the SDK's HTTP client sends it (or without `Accept-Encoding`), the answer's bytes undecoded. */
function get(path: string, token: string, acceptEncoding?: string): Promise<Answer> {
  const url = new URL(path, c.running.url);
  const headers: Record<string, string> = { 'zt-session': token, accept: 'application/json', ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, ca: c.running.caPem, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
  client = await createPasswordIdentity(c, admin, 'gzip-user', 'gzip-password-1');
  await c.http.patch(`${M}/identities/${client.id}`, { body: { roleAttributes: ['gzip-team'] }, session: admin, expectStatus: 200 });
  for (let i = 0; i < SERVICES; i++) {
    await c.http.post(`${M}/services`, { body: { name: `gzip-service-${String(i).padStart(2, '0')}`, encryptionRequired: true, roleAttributes: ['gzip'], tags: { note: 'x'.repeat(200) } }, session: admin, expectStatus: 201 });
  }
  await c.http.post(`${M}/service-policies`, {
    body: { name: 'gzip-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#gzip-team'], serviceRoles: ['#gzip'] }, session: admin, expectStatus: 201,
  });
  client.token = await c.login('gzip-user', 'gzip-password-1');
}, 120_000);

afterAll(async () => c?.stop());

describe('gzip', () => {
  it('sends a client its large service list gzipped when it accepts gzip, the same JSON as without', async () => {
    const plain = await get(`${C}/services?limit=500`, client.token);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('accept-encoding');
    const names = JSON.parse(plain.bytes.toString('utf8')).data.map((s: { name: string }) => s.name);
    expect(names).toHaveLength(SERVICES);
    expect(plain.bytes.length).toBeGreaterThan(8 * 1024);

    const zipped = await get(`${C}/services?limit=500`, client.token, 'gzip, deflate');
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toContain('accept-encoding');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.bytes.length);
    expect(zipped.bytes.length).toBeLessThan(plain.bytes.length / 4);
    expect(JSON.parse(gunzipSync(zipped.bytes).toString('utf8'))).toEqual(JSON.parse(plain.bytes.toString('utf8')));
    // Sent again (a held page): the same bytes.
    expect((await get(`${C}/services?limit=500`, client.token, 'gzip')).bytes.equals(zipped.bytes)).toBe(true);
  });

  it('gzips a large management page too, and never when gzip is refused or the answer is small', async () => {
    const page = await get(`${M}/services?limit=500`, admin, 'gzip');
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(page.bytes).toString('utf8')).meta.pagination.totalCount).toBeGreaterThanOrEqual(SERVICES);
    const refused = await get(`${M}/services?limit=500`, admin, 'gzip;q=0, identity');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.bytes.toString('utf8')).data.length).toBeGreaterThanOrEqual(SERVICES);
    const small = await get(`${C}/current-identity`, client.token, 'gzip');
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString('utf8')).data.name).toBe('gzip-user');
  });
});
