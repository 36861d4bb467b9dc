/**
 * Body-less requests as generated clients send them: `Content-Type: application/json` with
 * `Content-Length: 0`. An empty body is no body, so each operation does what it does without one.
 *
 * Regression: every one of these was refused with 400 COULD_NOT_PARSE_BODY.
 */
import { describe, expect, it } from 'vitest';
import { adminApi, M } from './support/admin-api.js';
import { useController, type TestController } from './support/controller.js';
import { createPasswordIdentity } from './support/password-identity.js';

const C = '/edge/client/v1';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const api = adminApi(() => c, () => admin);

/** POST (or another method) with an empty JSON body, as a generated client sends it. */
const bodiless = (method: string, path: string, session: string | undefined = admin) =>
  c.http.request(method, path, { rawBody: '', headers: { 'content-type': 'application/json' }, session });

async function integrityRunFinished() {
  for (let i = 0; i < 200; i++) {
    if (!(await api.get('/database/data-integrity-results')).body.data.inProgress) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the integrity run did not finish');
}

describe('an empty JSON body is no body', () => {
  it('enables a disabled identity', async () => {
    const id = (await api.post('/identities', { name: 'empty-body-enable', type: 'User', isAdmin: false })).body.data.id;
    await api.post(`/identities/${id}/disable`, { durationMinutes: 0 }, 200);
    expect((await api.get(`/identities/${id}`)).body.data.disabled).toBe(true);
    expect((await bodiless('POST', `${M}/identities/${id}/enable`)).status).toBe(200);
    expect((await api.get(`/identities/${id}`)).body.data.disabled).toBe(false);
  });

  it('re-enrolls an edge router', async () => {
    const id = (await api.post('/edge-routers', { name: 'empty-body-router' })).body.data.id;
    const before = (await api.get(`/edge-routers/${id}`)).body.data.enrollmentJwt;
    expect((await bodiless('POST', `${M}/edge-routers/${id}/re-enroll`)).status).toBe(200);
    const after = (await api.get(`/edge-routers/${id}`)).body.data.enrollmentJwt;
    expect(after).toEqual(expect.any(String));
    expect(after).not.toBe(before);
  });

  it('starts data integrity checks and fixes, and writes a snapshot', async () => {
    expect((await bodiless('POST', `${M}/database/check-data-integrity`)).status).toBe(202);
    await integrityRunFinished();
    expect((await bodiless('POST', `${M}/database/fix-data-integrity`)).status).toBe(202);
    await integrityRunFinished();
    expect((await bodiless('POST', `${M}/database/snapshot`)).status).toBe(200);
  });

  it('starts an MFA enrollment for the caller', async () => {
    const { token } = await createPasswordIdentity(c, admin, 'empty-body-mfa', 'empty-body-mfa-password');
    expect((await bodiless('POST', `${C}/current-identity/mfa`, token)).status).toBe(201);
    expect((await c.http.get(`${C}/current-identity/mfa`, { session: token, expectStatus: 200 })).body.data.isVerified).toBe(false);
  });

  it('answers /enroll/ca as it answers a request with no body at all', async () => {
    const empty = await bodiless('POST', `${C}/enroll/ca`, undefined);
    const none = await c.http.post(`${C}/enroll/ca`);
    expect(empty.body.error.code).not.toBe('COULD_NOT_PARSE_BODY');
    expect({ status: empty.status, code: empty.body.error.code }).toEqual({ status: none.status, code: none.body.error.code });
  });

  it('deletes with an empty body, and a body of only white space is no body either', async () => {
    const id = (await api.post('/identities', { name: 'empty-body-delete', type: 'User', isAdmin: false })).body.data.id;
    expect((await bodiless('DELETE', `${M}/identities/${id}`)).status).toBe(200);
    await api.get(`/identities/${id}`, 404);
    const r = await c.http.post(`${M}/database/snapshot`, { rawBody: ' \r\n ', headers: { 'content-type': 'application/json; charset=utf-8' }, session: admin });
    expect(r.status).toBe(200);
  });
});
