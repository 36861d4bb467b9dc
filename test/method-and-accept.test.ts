/**
 * A known path asked with a method it is not served with is 405 METHOD_NOT_ALLOWED with `Allow`
 * (OpenZiti tests/standard_error_test.go, tests/authenticator_test.go), and `POST /enroll` asked
 * for an answer it cannot give is 406 (tests/api_error_test.go); both in the error envelope.
 *
 * Regression: both were 404 NOT_FOUND (wrong method) or an answer the client did not accept.
 */
import { X509Certificate, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HttpResult } from '@edge/testing';
import { adminApi, M } from './support/admin-api.js';
import { useController, type TestController } from './support/controller.js';
import { makeCsr } from './support/csr.js';

const C = '/edge/client/v1';
const ENVELOPE_META = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' };

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const api = adminApi(() => c, () => admin);

function expectError(r: HttpResult, status: number, code: string) {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.body.meta).toEqual(ENVELOPE_META);
  expect(r.body.error.requestId).toEqual(expect.any(String));
}

describe('405 for a known path with a wrong method', () => {
  it.each([
    ['POST', '/version', 'GET, HEAD'],
    ['POST', `${M}/version`, 'GET, HEAD'],
    ['DELETE', `${C}/current-identity/authenticators/x1`, 'GET, HEAD, PATCH, PUT'],
    ['POST', `${C}/current-identity/authenticators`, 'GET, HEAD'],
    ['PUT', `${M}/identities`, 'GET, HEAD, POST'],
    ['PATCH', `${M}/database/snapshot`, 'POST'],
    ['DELETE', `/edge/v1/services`, 'GET, HEAD'],
    ['DELETE', `${M}/identities/`, 'GET, HEAD, POST'],
  ])('%s %s: 405 with Allow: %s', async (method, path, allow) => {
    const r = await c.http.request(method, path, { body: method === 'DELETE' ? undefined : {}, session: admin, skipValidation: true });
    expectError(r, 405, 'METHOD_NOT_ALLOWED');
    expect(r.headers.allow).toBe(allow);
  });

  it('keeps 404 for a path served with no method, and for the method a path is served with', async () => {
    for (const path of [`${M}/no-such-things`, `${M}/identities/x/no-such-thing`]) {
      expectError(await c.http.request('DELETE', path, { session: admin, skipValidation: true }), 404, 'NOT_FOUND');
    }
    expectError(await c.http.get(`${M}/identities/no-such-id`, { session: admin }), 404, 'NOT_FOUND');
  });
});

describe('paths with a trailing or doubled slash', () => {
  // OpenZiti looks routes up by the cleaned path; the admin console (ZAC) reads every entity and
  // related list as `/<type>/<id>/<list>/?limit=...` (and an entity as `/<type>/<id>//`).
  it('answers them as the same path without', async () => {
    const me = (await c.http.get(`${M}/current-identity`, { session: admin, expectStatus: 200 })).body.data.id as string;
    for (const path of [`${M}/identities/${me}/`, `${M}/identities/${me}//`, `${M}//identities/${me}`]) {
      expect((await c.http.get(path, { session: admin, skipValidation: true })).body.data?.id, path).toBe(me);
    }
    const policies = await c.http.get(`${M}/identities/${me}/service-policies/?limit=5&offset=0`, { session: admin, skipValidation: true });
    expect({ status: policies.status, limit: policies.body.meta?.pagination?.limit }).toEqual({ status: 200, limit: 5 });
    expect((await c.http.get(`${M}/identities/?limit=1`, { session: admin, skipValidation: true })).body.data).toHaveLength(1);
  });
});

describe('406 for an enrollment answer the client does not accept', () => {
  const enroll = (accept: string | undefined, rawBody?: string, token: string = randomUUID()) =>
    c.http.post(`${C}/enroll?token=${token}`, {
      rawBody, headers: { ...(rawBody ? { 'content-type': 'text/plain' } : {}), ...(accept === undefined ? {} : { accept }) }, skipValidation: true,
    });

  it('answers a bad token in JSON for any Accept that takes JSON, and 406 for one that does not (as OpenZiti)', async () => {
    for (const accept of ['', '*/*', 'application/json', 'application/x-pem-file, application/json', 'application/*']) {
      expectError(await enroll(accept), 400, 'INVALID_ENROLLMENT_TOKEN');
    }
    for (const accept of ['application/x-pem-file', 'text/html', 'application/json;q=0']) {
      const r = await enroll(accept);
      expectError(r, 406, 'COULD_NOT_VALIDATE');
      expect(r.body.error.cause).toMatchObject({ field: 'Accept', value: accept });
    }
  });

  it('refuses an ott PEM enrollment asking for neither JSON nor PEM without using the token, then enrolls it', async () => {
    const id = (await api.post('/identities', { name: 'accept-ott', type: 'Device', isAdmin: false, enrollment: { ott: true } })).body.data.id;
    const token = (await api.get(`/identities/${id}`)).body.data.enrollment.ott.token as string;
    const { csrPem } = await makeCsr('accept-ott');
    expectError(await enroll('text/html', csrPem, token), 406, 'COULD_NOT_VALIDATE');
    expect((await api.get(`/identities/${id}`)).body.data.enrollment.ott.token).toBe(token);
    const r = await enroll('application/x-pem-file', csrPem, token);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/x-pem-file/);
    expect(new X509Certificate(r.text).subject).toBe(`CN=${id}`);
  });
});
