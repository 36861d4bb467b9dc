/**
 * Identity permissions on the Management API, as OpenZiti's tests/permissions_*_test.go drive
 * them: admin_readonly reads everything and changes nothing, an entity permission grants every
 * operation on that entity, an entity action only that action, and nobody but an admin makes
 * admins. Invalid permission values are refused.
 */
import { describe, expect, it } from 'vitest';
import { useController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const M = '/edge/management/v1';
let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

let users = 0;
/** A logged-in identity holding `permissions`. */
async function sessionWith(permissions: string[]): Promise<{ id: string; token: string }> {
  const name = `perm-user-${++users}`;
  const user = await createPasswordIdentity(c, admin, name, `${name}-password`);
  await c.http.patch(`${M}/identities/${user.id}`, { session: admin, body: { permissions }, expectStatus: 200 });
  return { id: user.id, token: await c.login(name, `${name}-password`) };
}

const policyBody = (name: string) => ({
  name,
  primary: {
    cert: { allowed: true, allowExpiredCerts: false }, extJwt: { allowed: false, allowedSigners: [] },
    updb: { allowed: true, minPasswordLength: 5, requireMixedCase: false, requireNumberChar: false, requireSpecialChar: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null },
});

const status = async (p: Promise<{ status: number }>) => (await p).status;

describe('permission values', () => {
  // regression: any string was stored (controller/model/identity_manager.go validateIdentityPermissions)
  it('refuses an unknown permission with 400 naming permissions, on create and patch, and changes nothing', async () => {
    const created = await c.http.post(`${M}/identities`, { session: admin, body: { name: 'bad-perms', type: 'User', isAdmin: false, permissions: ['admin_readonly', 'root'] }, expectStatus: 400 });
    expect(created.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'permissions' } });
    expect(created.body.error.cause.reason).toContain("'root'");
    const list = await c.http.get(`${M}/identities?filter=${encodeURIComponent('name = "bad-perms"')}`, { session: admin, expectStatus: 200 });
    expect(list.body.data).toEqual([]);
    const { id } = await sessionWith(['service.read']);
    const patched = await c.http.patch(`${M}/identities/${id}`, { session: admin, body: { permissions: ['authenticator'] }, expectStatus: 400 });
    expect(patched.body.error.cause.field).toBe('permissions');
    expect((await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data.permissions).toEqual(['service.read']);
  });
});

describe('admin_readonly', () => {
  // regression: permissions were stored but not enforced, so an admin_readonly identity got 401 on reads
  it('reads every management list and detail, and gets 401 UNAUTHORIZED for every change', async () => {
    const { token } = await sessionWith(['admin_readonly']);
    const policy = (await c.http.post(`${M}/auth-policies`, { session: admin, body: policyBody('readable policy'), expectStatus: 201 })).body.data.id;
    const lists = ['identities', 'services', 'configs', 'config-types', 'service-policies', 'edge-router-policies', 'service-edge-router-policies',
      'edge-routers', 'transit-routers', 'posture-checks', 'cas', 'auth-policies', 'external-jwt-signers', 'enrollments', 'api-sessions',
      'sessions', 'terminators', 'authenticators', 'revocations', 'identity-role-attributes', 'identity-types'];
    for (const l of lists) expect([l, await status(c.http.get(`${M}/${l}`, { session: token }))]).toEqual([l, 200]);
    await c.http.get(`${M}/auth-policies/${policy}`, { session: token, expectStatus: 200 });
    await c.http.get(`${M}/identities/${(await c.http.get(`${M}/current-identity`, { session: admin })).body.data.id}/authenticators`, { session: token, expectStatus: 200 });

    const writes: Array<[string, Promise<{ status: number; body: any }>]> = [
      ['create service', c.http.post(`${M}/services`, { session: token, body: { name: 'ro-service', encryptionRequired: true } })],
      ['patch policy', c.http.patch(`${M}/auth-policies/${policy}`, { session: token, body: { name: 'renamed' } })],
      ['delete policy', c.http.delete(`${M}/auth-policies/${policy}`, { session: token })],
      ['create identity', c.http.post(`${M}/identities`, { session: token, body: { name: 'ro-identity', type: 'User', isAdmin: false } })],
      ['snapshot', c.http.post(`${M}/database/snapshot`, { session: token })],
    ];
    for (const [what, p] of writes) {
      const r = await p;
      expect([what, r.status, r.body.error?.code]).toEqual([what, 401, 'UNAUTHORIZED']);
    }
    expect((await c.http.get(`${M}/auth-policies/${policy}`, { session: admin, expectStatus: 200 })).body.data.name).toBe('readable policy');
    expect(await status(c.http.get(`${M}/summary`, { session: token }))).toBe(401);
  });

  it('loses its reads on open sessions when the permission is taken away', async () => {
    const { id, token } = await sessionWith(['admin_readonly']);
    await c.http.get(`${M}/services`, { session: token, expectStatus: 200 });
    await c.http.patch(`${M}/identities/${id}`, { session: admin, body: { permissions: [] }, expectStatus: 200 });
    await expect.poll(() => status(c.http.get(`${M}/services`, { session: token })), { timeout: 5_000, interval: 100 }).toBe(401);
  });
});

describe('entity and entity-action permissions', () => {
  it('grants every operation on the entity with the entity permission, and nothing else', async () => {
    const { token } = await sessionWith(['auth-policy']);
    const id = (await c.http.post(`${M}/auth-policies`, { session: token, body: policyBody('entity-perm policy'), expectStatus: 201 })).body.data.id;
    await c.http.get(`${M}/auth-policies/${id}`, { session: token, expectStatus: 200 });
    await c.http.patch(`${M}/auth-policies/${id}`, { session: token, body: { name: 'entity-perm updated' }, expectStatus: 200 });
    await c.http.delete(`${M}/auth-policies/${id}`, { session: token, expectStatus: 200 });
    expect(await status(c.http.post(`${M}/identities`, { session: token, body: { name: 'not-mine', type: 'User', isAdmin: false } }))).toBe(401);
    expect(await status(c.http.get(`${M}/services`, { session: token }))).toBe(401);
  });

  it('grants only the action with an entity-action permission', async () => {
    const id = (await c.http.post(`${M}/auth-policies`, { session: admin, body: policyBody('action policy'), expectStatus: 201 })).body.data.id;
    const reader = (await sessionWith(['auth-policy.read'])).token;
    await c.http.get(`${M}/auth-policies/${id}`, { session: reader, expectStatus: 200 });
    await c.http.get(`${M}/auth-policies`, { session: reader, expectStatus: 200 });
    expect(await status(c.http.post(`${M}/auth-policies`, { session: reader, body: policyBody('reader create') }))).toBe(401);
    expect(await status(c.http.delete(`${M}/auth-policies/${id}`, { session: reader }))).toBe(401);
    const creator = (await sessionWith(['auth-policy.create'])).token;
    await c.http.post(`${M}/auth-policies`, { session: creator, body: policyBody('creator create'), expectStatus: 201 });
    expect(await status(c.http.get(`${M}/auth-policies/${id}`, { session: creator }))).toBe(401);
    const deleter = (await sessionWith(['auth-policy.delete'])).token;
    await c.http.delete(`${M}/auth-policies/${id}`, { session: deleter, expectStatus: 200 });
  });

  it('keeps a non-admin with the identity permission from making admins or changing them', async () => {
    const { id, token } = await sessionWith(['identity']);
    const plain = (await c.http.post(`${M}/identities`, { session: token, body: { name: 'made-by-non-admin', type: 'User', isAdmin: false }, expectStatus: 201 })).body.data.id;
    await c.http.patch(`${M}/identities/${plain}`, { session: token, body: { roleAttributes: ['made'] }, expectStatus: 200 });
    const refused: Array<[string, Promise<{ status: number; body: any }>]> = [
      ['create admin', c.http.post(`${M}/identities`, { session: token, body: { name: 'sneaky-admin', type: 'User', isAdmin: true } })],
      ['create with permissions', c.http.post(`${M}/identities`, { session: token, body: { name: 'sneaky-perms', type: 'User', isAdmin: false, permissions: ['ops'] } })],
      ['raise itself', c.http.patch(`${M}/identities/${id}`, { session: token, body: { isAdmin: true } })],
      ['grant itself', c.http.patch(`${M}/identities/${id}`, { session: token, body: { permissions: ['identity', 'service'] } })],
      ['replace', c.http.put(`${M}/identities/${plain}`, { session: token, body: { name: 'made-by-non-admin', type: 'User', isAdmin: false } })],
      ['delete the admin', c.http.delete(`${M}/identities/${(await c.http.get(`${M}/current-identity`, { session: admin })).body.data.id}`, { session: token })],
    ];
    for (const [what, p] of refused) {
      const r = await p;
      expect([what, r.status, r.body.error?.code]).toEqual([what, 401, 'UNAUTHORIZED']);
    }
    const me = (await c.http.get(`${M}/identities/${id}`, { session: admin, expectStatus: 200 })).body.data;
    expect(me).toMatchObject({ isAdmin: false, permissions: ['identity'] });
  });

  it('keeps a non-admin with the enrollment permission from enrolling as an admin', async () => {
    const { token } = await sessionWith(['enrollment', 'identity.read']);
    const adminUser = await createPasswordIdentity(c, admin, 'enroll-target-admin', 'enroll-target-password', true);
    const expiresAt = new Date(Date.now() + 600_000).toISOString();
    const r = await c.http.post(`${M}/enrollments`, { session: token, body: { method: 'ott', identityId: adminUser.id, expiresAt } });
    expect([r.status, r.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    const plain = (await c.http.post(`${M}/identities`, { session: admin, body: { name: 'enroll-target-plain', type: 'User', isAdmin: false }, expectStatus: 201 })).body.data.id;
    await c.http.post(`${M}/enrollments`, { session: token, body: { method: 'ott', identityId: plain, expiresAt }, expectStatus: 201 });
    const adminOtt = (await c.http.post(`${M}/enrollments`, { session: admin, body: { method: 'ott', identityId: adminUser.id, expiresAt }, expectStatus: 201 })).body.data.id;
    expect(await status(c.http.get(`${M}/enrollments/${adminOtt}`, { session: token }))).toBe(401);
    const listed = (await c.http.get(`${M}/enrollments?limit=500`, { session: token, expectStatus: 200 })).body.data.map((e: { identityId?: string }) => e.identityId);
    expect(listed).toContain(plain);
    expect(listed).not.toContain(adminUser.id);
    const detail = (await c.http.get(`${M}/identities/${adminUser.id}`, { session: token, expectStatus: 200 })).body.data;
    expect(detail.enrollment).toEqual({});
  });
});
