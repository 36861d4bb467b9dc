/**
 * Authenticators end to end: management CRUD of username/password and certificate
 * authenticators, password rules of the identity's auth policy, and the caller's own
 * authenticators on the client API.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useController, type TestController } from '../support/controller.js';
import { eventually } from '../support/eventually.js';

const M = '/edge/management/v1';
const C = '/edge/client/v1';
let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

async function identity(name: string, authPolicyId?: string): Promise<string> {
  const r = await c.http.post(`${M}/identities`, { body: { name, type: 'User', isAdmin: false, ...(authPolicyId ? { authPolicyId } : {}) }, session: admin, expectStatus: 201 });
  return r.body.data.id;
}

async function updb(identityId: string, username: string, password: string): Promise<string> {
  const r = await c.http.post(`${M}/authenticators`, { body: { method: 'updb', identityId, username, password }, session: admin, expectStatus: 201 });
  expect(r.body.data._links.self.href).toBe(`./authenticators/${r.body.data.id}`);
  return r.body.data.id;
}

const loginStatus = async (username: string, password: string) =>
  (await c.http.post(`${C}/authenticate?method=password`, { body: { username, password } })).status;

function selfSignedPem(): string {
  return execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=auth-test',
    '-days', '1', '-keyout', '/dev/null', '-out', '-'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
}

describe('management authenticators', () => {
  it('creates a username/password authenticator the identity can log in with, and reads it back', async () => {
    const id = await identity('auth-alice');
    const authId = await updb(id, 'alice-user', 'alice-secret');
    expect(await loginStatus('alice-user', 'alice-secret')).toBe(200);
    const d = (await c.http.get(`${M}/authenticators/${authId}`, { session: admin, expectStatus: 200 })).body.data;
    expect(d).toMatchObject({ id: authId, method: 'updb', identityId: id, identity: { id, name: 'auth-alice' }, username: 'alice-user' });
    expect(JSON.stringify(d)).not.toContain('alice-secret');
    const mine = await c.http.get(`${M}/identities/${id}/authenticators`, { session: admin, expectStatus: 200 });
    expect(mine.body.data.map((a: { id: string }) => a.id)).toEqual([authId]);
    const filtered = await c.http.get(`${M}/authenticators?filter=${encodeURIComponent(`method = "updb" and username = "alice-user"`)}`, { session: admin, expectStatus: 200 });
    expect(filtered.body.data.map((a: { id: string }) => a.id)).toEqual([authId]);
  });

  it('replaces and patches credentials, and deletes', async () => {
    const id = await identity('auth-bob');
    const authId = await updb(id, 'bob-user', 'bob-secret');
    await c.http.put(`${M}/authenticators/${authId}`, { body: { username: 'bob-user2', password: 'bob-secret2' }, session: admin, expectStatus: 200 });
    expect(await loginStatus('bob-user', 'bob-secret')).toBe(401);
    expect(await loginStatus('bob-user2', 'bob-secret2')).toBe(200);
    await c.http.patch(`${M}/authenticators/${authId}`, { body: { tags: { note: 'x' } }, session: admin, expectStatus: 200 });
    const d = (await c.http.get(`${M}/authenticators/${authId}`, { session: admin, expectStatus: 200 })).body.data;
    expect(d).toMatchObject({ username: 'bob-user2', tags: { note: 'x' } });
    expect(await loginStatus('bob-user2', 'bob-secret2')).toBe(200);
    await c.http.delete(`${M}/authenticators/${authId}`, { session: admin, expectStatus: 200 });
    await c.http.get(`${M}/authenticators/${authId}`, { session: admin, expectStatus: 404 });
    expect(await loginStatus('bob-user2', 'bob-secret2')).toBe(401);
  });

  it('enforces the password rules of the identity\'s auth policy', async () => {
    const policy = await c.http.post(`${M}/auth-policies`, {
      session: admin, expectStatus: 201, body: {
        name: 'strict passwords',
        primary: {
          cert: { allowed: true, allowExpiredCerts: false }, extJwt: { allowed: false, allowedSigners: [] },
          updb: { allowed: true, minPasswordLength: 10, requireMixedCase: true, requireNumberChar: true, requireSpecialChar: true, maxAttempts: 0, lockoutDurationMinutes: 0 },
        },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
      },
    });
    const id = await identity('auth-strict', policy.body.data.id);
    for (const [password, reason] of [['short1!A', /at least 10/], ['longenough1!', /upper and lower/], ['LongEnough!!', /number/], ['LongEnough12', /special/]] as const) {
      const r = await c.http.post(`${M}/authenticators`, { body: { method: 'updb', identityId: id, username: `strict-${password}`, password }, session: admin, expectStatus: 400 });
      expect(r.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'password' } });
      expect(r.body.error.cause.reason).toMatch(reason);
      expect(JSON.stringify(r.body)).not.toContain(password);
    }
    await updb(id, 'strict-user', 'LongEnough1!');
  });

  it('keys certificate authenticators by fingerprint and refuses the same certificate twice', async () => {
    const pem = selfSignedPem();
    const fingerprint = createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');
    const id = await identity('auth-cert');
    const r = await c.http.post(`${M}/authenticators`, { body: { method: 'cert', identityId: id, certPem: pem }, session: admin, expectStatus: 201 });
    const d = (await c.http.get(`${M}/authenticators/${r.body.data.id}`, { session: admin, expectStatus: 200 })).body.data;
    // a certificate the controller's CA did not issue cannot be extended by its holder
    expect(d).toMatchObject({ method: 'cert', fingerprint, identityId: id, isIssuedByNetwork: false });
    // The spec lists no 409 for this operation; OpenZiti answers CERT_IN_USE with it all the same.
    const again = await c.http.post(`${M}/authenticators`, { body: { method: 'cert', identityId: await identity('auth-cert-2'), certPem: pem }, session: admin, expectStatus: 409, skipValidation: true });
    expect(again.body.error.code).toBe('CERT_IN_USE');
    // The spec lists no 409 here either; OpenZiti's code for it (apierror.NewAuthenticatorCannotBeUpdated).
    const put = await c.http.put(`${M}/authenticators/${r.body.data.id}`, { body: { username: 'cert-user', password: 'whatever1' }, session: admin, expectStatus: 409, skipValidation: true });
    expect(put.body.error.code).toBe('CAN_NOT_UPDATE_AUTHENTICATOR');
  });

  // regression: a second updb authenticator was accepted; OpenZiti allows one per method
  // (tests/authenticator_test.go "cannot create a updb authenticator for an identity with an existing updb authenticator")
  it('refuses a second authenticator of the same method for an identity with 409 MAX_AUTHENTICATOR_METHODS_REACHED', async () => {
    const id = await identity('auth-max');
    await updb(id, 'max-user', 'max-secret');
    const second = await c.http.post(`${M}/authenticators`, {
      body: { method: 'updb', identityId: id, username: 'max-user-2', password: 'max-secret' }, session: admin, expectStatus: 409, skipValidation: true,
    });
    expect(second.body.error).toMatchObject({ code: 'MAX_AUTHENTICATOR_METHODS_REACHED' });
    expect(await loginStatus('max-user-2', 'max-secret')).toBe(401);
    const cert = (pem: string) => c.http.post(`${M}/authenticators`, { body: { method: 'cert', identityId: id, certPem: pem }, session: admin, skipValidation: true });
    expect((await cert(selfSignedPem())).status).toBe(201);
    const secondCert = await cert(selfSignedPem());
    expect([secondCert.status, secondCert.body.error?.code]).toEqual([409, 'MAX_AUTHENTICATOR_METHODS_REACHED']);
    const mine = await c.http.get(`${M}/identities/${id}/authenticators`, { session: admin, expectStatus: 200 });
    expect(mine.body.data.map((a: { method: string }) => a.method).sort()).toEqual(['cert', 'updb']);
  });

  it('refuses bad input with the field at fault', async () => {
    const id = await identity('auth-bad');
    const bad = async (body: unknown, code: string, field: string) => {
      const r = await c.http.post(`${M}/authenticators`, { body, session: admin, expectStatus: 400 });
      expect(r.body.error).toMatchObject({ code, cause: { field } });
    };
    await bad({ method: 'magic', identityId: id }, 'COULD_NOT_VALIDATE', 'method');
    await bad({ method: 'updb', identityId: 'nobody', username: 'nobody-user', password: 'secret-pw' }, 'REFERENCED_ENTITY_NOT_FOUND', 'identityId');
    await bad({ method: 'updb', username: 'x-user', password: 'secret-pw' }, 'COULD_NOT_VALIDATE', 'identityId');
    await bad({ method: 'updb', identityId: id, password: 'secret-pw' }, 'COULD_NOT_VALIDATE', 'username');
    await bad({ method: 'cert', identityId: id, certPem: 'not a certificate' }, 'COULD_NOT_VALIDATE', 'certPem');
    await updb(id, 'taken-user', 'secret-pw');
    await bad({ method: 'updb', identityId: await identity('auth-bad-2'), username: 'taken-user', password: 'secret-pw' }, 'COULD_NOT_VALIDATE', 'username');
  });
});

describe('removing a credential ends its API sessions', () => {
  const sessionGone = (token: string) => eventually(async () => (await c.http.get(`${C}/current-api-session`, { session: token })).status === 401);

  // regression: DELETE /authenticators/{id} left the API sessions opened with it working
  // (OpenZiti: controller/db/authenticator_store.go DeleteById)
  it('ends the API sessions opened with a deleted authenticator, and no others', async () => {
    const id = await identity('auth-ends');
    const authId = await updb(id, 'ends-user', 'ends-secret');
    const token = await c.login('ends-user', 'ends-secret');
    const session = (await c.http.get(`${C}/current-api-session`, { session: token, expectStatus: 200 })).body.data;
    expect(session.authenticatorId).toBe(authId);
    await c.http.delete(`${M}/authenticators/${authId}`, { session: admin, expectStatus: 200 });
    await c.http.get(`${M}/api-sessions/${session.id}`, { session: admin, expectStatus: 404 });
    await sessionGone(token);
    await c.http.get(`${M}/current-api-session`, { session: admin, expectStatus: 200 });
  });

  // regression: re-enroll followed by completing the enrollment left the old API session working
  it('ends the API sessions of a re-enrolled authenticator; the new credential logs in', async () => {
    const id = await identity('auth-reenroll-ends');
    const authId = await updb(id, 'reenroll-ends', 'old-password');
    const token = await c.login('reenroll-ends', 'old-password');
    const sessionId = (await c.http.get(`${C}/current-api-session`, { session: token, expectStatus: 200 })).body.data.id;
    const r = await c.http.post(`${M}/authenticators/${authId}/re-enroll`, { body: { expiresAt: new Date(Date.now() + 600_000).toISOString() }, session: admin, expectStatus: 201 });
    const enrollment = (await c.http.get(`${M}/enrollments/${r.body.data.id}`, { session: admin, expectStatus: 200 })).body.data;
    await c.http.post(`${C}/enroll/updb?token=${enrollment.token}`, { body: { password: 'new-password' }, expectStatus: 200 });
    await c.http.get(`${M}/api-sessions/${sessionId}`, { session: admin, expectStatus: 404 });
    await sessionGone(token);
    expect(await loginStatus('reenroll-ends', 'new-password')).toBe(200);
  });
});

describe('re-enrolling and extension requests', () => {
  it('turns a updb authenticator back into a updb enrollment the identity can redeem', async () => {
    const id = await identity('auth-reenroll');
    const authId = await updb(id, 'reenroll-user', 'first-password');
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const r = await c.http.post(`${M}/authenticators/${authId}/re-enroll`, { body: { expiresAt }, session: admin, expectStatus: 201 });
    const enrollment = (await c.http.get(`${M}/enrollments/${r.body.data.id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(enrollment).toMatchObject({ method: 'updb', identityId: id, username: 'reenroll-user' });
    await c.http.get(`${M}/authenticators/${authId}`, { session: admin, expectStatus: 404 });
    expect(await loginStatus('reenroll-user', 'first-password')).toBe(401);
    await c.http.post(`${C}/enroll/updb?token=${enrollment.token}`, { body: { password: 'second-password' }, expectStatus: 200 });
    expect(await loginStatus('reenroll-user', 'second-password')).toBe(200);
    const bad = await c.http.post(`${M}/authenticators/nope/re-enroll`, { body: { expiresAt }, session: admin });
    expect(bad.status).toBe(404);
  });

  it('flags certificate authenticators for early extension, turns them into OTT enrollments, and refuses others', async () => {
    const id = await identity('auth-extend');
    const cert = (await c.http.post(`${M}/authenticators`, { body: { method: 'cert', identityId: id, certPem: selfSignedPem() }, session: admin, expectStatus: 201 })).body.data.id;
    await c.http.post(`${M}/authenticators/${cert}/request-extend`, { body: { rollKeys: true }, session: admin, expectStatus: 200 });
    const d = (await c.http.get(`${M}/authenticators/${cert}`, { session: admin, expectStatus: 200 })).body.data;
    expect(d).toMatchObject({ isExtendRequested: true, isKeyRollRequested: true });
    expect(Date.parse(d.extendRequestedAt)).toBeGreaterThan(Date.now() - 60_000);
    const pw = await updb(await identity('auth-extend-updb'), 'extend-user', 'secret-pw');
    const refused = await c.http.post(`${M}/authenticators/${pw}/request-extend`, { body: {}, session: admin, expectStatus: 403 });
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const r = await c.http.post(`${M}/authenticators/${cert}/re-enroll`, { body: { expiresAt: new Date(Date.now() + 600_000).toISOString() }, session: admin, expectStatus: 201 });
    expect((await c.http.get(`${M}/enrollments/${r.body.data.id}`, { session: admin, expectStatus: 200 })).body.data).toMatchObject({ method: 'ott', identityId: id });
  });
});

describe('current identity authenticators', () => {
  it('shows only the caller\'s own and changes its password only with the current one', async () => {
    const carol = await identity('auth-carol');
    const carolAuth = await updb(carol, 'carol-user', 'carol-secret');
    const dave = await identity('auth-dave');
    const daveAuth = await updb(dave, 'dave-user', 'dave-secret');
    const token = await c.login('carol-user', 'carol-secret');

    const list = await c.http.get(`${C}/current-identity/authenticators`, { session: token, expectStatus: 200 });
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([carolAuth]);
    await c.http.get(`${C}/current-identity/authenticators/${carolAuth}`, { session: token, expectStatus: 200 });
    await c.http.get(`${C}/current-identity/authenticators/${daveAuth}`, { session: token, expectStatus: 404 });
    await c.http.put(`${C}/current-identity/authenticators/${daveAuth}`, { body: { username: 'dave-user', password: 'hijacked1', currentPassword: 'carol-secret' }, session: token, expectStatus: 404 });

    const wrong = await c.http.put(`${C}/current-identity/authenticators/${carolAuth}`, { body: { username: 'carol-user', password: 'carol-new1', currentPassword: 'not-it' }, session: token, expectStatus: 401 });
    expect(wrong.body.error).toMatchObject({ code: 'UNAUTHORIZED', cause: { field: 'currentPassword' } });
    expect(JSON.stringify(wrong.body)).not.toContain('not-it');
    await c.http.put(`${C}/current-identity/authenticators/${carolAuth}`, { body: { username: 'carol-user', password: 'carol-new1' }, session: token, expectStatus: 400 });

    await c.http.patch(`${C}/current-identity/authenticators/${carolAuth}`, { body: { password: 'carol-new1', currentPassword: 'carol-secret' }, session: token, expectStatus: 200 });
    expect(await loginStatus('carol-user', 'carol-secret')).toBe(401);
    expect(await loginStatus('carol-user', 'carol-new1')).toBe(200);
    expect(await loginStatus('dave-user', 'dave-secret')).toBe(200);
  });

  // regression: answered 400 AUTHENTICATOR_CAN_NOT_BE_UPDATED; OpenZiti answers 409
  // CAN_NOT_UPDATE_AUTHENTICATOR before looking at the current password (tests/authenticator_test.go
  // "a non-admin cannot update/patch their own cert authenticator")
  it('refuses to change a certificate authenticator through PUT and PATCH with 409 CAN_NOT_UPDATE_AUTHENTICATOR', async () => {
    const erin = await identity('auth-erin');
    await updb(erin, 'erin-user', 'erin-secret');
    const certId = (await c.http.post(`${M}/authenticators`, { body: { method: 'cert', identityId: erin, certPem: selfSignedPem() }, session: admin, expectStatus: 201 })).body.data.id;
    const token = await c.login('erin-user', 'erin-secret');
    const body = { currentPassword: 'assdfasdf', password: 'asdfasdf', username: 'asdfasdf' };
    for (const api of [C, M]) {
      // The spec lists no 409 for these operations.
      const put = await c.http.put(`${api}/current-identity/authenticators/${certId}`, { body, session: token, expectStatus: 409, skipValidation: true });
      expect(put.body.error.code).toBe('CAN_NOT_UPDATE_AUTHENTICATOR');
      const patch = await c.http.patch(`${api}/current-identity/authenticators/${certId}`, { body, session: token, expectStatus: 409, skipValidation: true });
      expect(patch.body.error.code).toBe('CAN_NOT_UPDATE_AUTHENTICATOR');
    }
    expect(await loginStatus('erin-user', 'erin-secret')).toBe(200);
  });
});
