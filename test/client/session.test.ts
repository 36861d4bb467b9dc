import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN, startTestController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';
import { grpcCallsOf } from '../support/metrics.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
let c: TestController;

beforeAll(async () => {
  c = await startTestController();
});
afterAll(async () => c?.stop());

describe('authentication and the current session', () => {
  it('logs in by password on the client API and sends the token in zt-session', async () => {
    const r = await c.http.post(`${C}/authenticate?method=password`, {
      body: { ...ADMIN, envInfo: { os: 'linux', arch: 'x86_64' }, sdkInfo: { type: 'test-sdk', version: '1.0.0' }, configTypes: ['intercept.v1'] },
      expectStatus: 200,
    });
    expect(r.headers['zt-session']).toBe(r.body.data.token);
    // As MapConfigTypeNamesToIds (controller/model/config_type_manager.go): kept as ids.
    expect(r.body.data).toMatchObject({ isMfaRequired: false, isMfaComplete: false, configTypes: ['g7cIWbcGg'] });
    expect(r.body.data.expirationSeconds).toBeGreaterThan(29 * 60);

    const me = await c.http.get(`${C}/current-identity`, { session: r.body.data.token, expectStatus: 200 });
    expect(me.body.data.name).toBeTruthy();
    expect(me.body.data.isDefaultAdmin).toBe(true);
    expect(me.body.data.hasApiSession).toBe(true);
    // The environment reaches the identity by event, a moment after the login is answered.
    await vi.waitFor(async () => {
      const again = await c.http.get(`${C}/current-identity`, { session: r.body.data.token, expectStatus: 200 });
      expect(again.body.data.envInfo).toMatchObject({ os: 'linux', arch: 'x86_64' });
      expect(again.body.data.sdkInfo).toMatchObject({ type: 'test-sdk' });
    }, { timeout: 5_000, interval: 50 });
    expect(me.headers['expiration-seconds']).toBeDefined();
    expect(me.headers['expires-at']).toBeDefined();

    const cur = await c.http.get(`${C}/current-api-session`, { session: r.body.data.token, expectStatus: 200 });
    expect(cur.body.data.id).toBe(r.body.data.id);
    expect(cur.body.data.identity.id).toBe(me.body.data.id);
  });

  it('keeps the config types asked for at login as ids: names resolved, unknown ones dropped, all as all', async () => {
    const login = async (configTypes: string[]) => (await c.http.post(`${C}/authenticate?method=password`, { body: { ...ADMIN, configTypes }, expectStatus: 200 })).body.data;
    const s = await login(['intercept.v1', 'NH5p4FpGR', 'no-such-type', 'g7cIWbcGg', 'host.v1']);
    expect([...s.configTypes].sort()).toEqual(['NH5p4FpGR', 'g7cIWbcGg']);
    const cur = await c.http.get(`${C}/current-api-session`, { session: s.token, expectStatus: 200 });
    expect([...cur.body.data.configTypes].sort()).toEqual(['NH5p4FpGR', 'g7cIWbcGg']);
    expect((await login(['intercept.v1', 'all'])).configTypes).toEqual(['all']);
    expect((await login([])).configTypes).toEqual([]);
  });

  it('resolves the config types a login names once while nothing changed, and again after a config type is added', async () => {
    const login = async (configTypes: string[]) => (await c.http.post(`${C}/authenticate?method=password`, { body: { ...ADMIN, configTypes }, expectStatus: 200 })).body.data;
    const names = ['intercept.v1', 'host.v1', 'later-type'];
    const first = await login(names);
    expect([...first.configTypes].sort()).toEqual(['NH5p4FpGR', 'g7cIWbcGg']);
    const before = await grpcCallsOf('ListConfigTypes');
    expect([...(await login(names)).configTypes].sort()).toEqual(['NH5p4FpGR', 'g7cIWbcGg']);
    expect(await grpcCallsOf('ListConfigTypes')).toEqual(before);
    // A new config type of a name the list asked for is seen by the next login.
    const admin = first.token as string;
    const created = await c.http.post(`${M}/config-types`, { session: admin, body: { name: 'later-type', schema: {} }, expectStatus: 201 });
    expect([...(await login(names)).configTypes].sort()).toEqual(['NH5p4FpGR', created.body.data.id, 'g7cIWbcGg'].sort());
  });

  it('refuses bad credentials and unknown methods', async () => {
    const wrong = await c.http.post(`${C}/authenticate?method=password`, { body: { username: ADMIN.username, password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_AUTH');
    const unknown = await c.http.post(`${C}/authenticate?method=password`, { body: { username: 'nobody-here', password: 'whatever' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('INVALID_AUTH');
    const method = await c.http.post(`${C}/authenticate?method=magic`, { body: ADMIN, skipValidation: true });
    expect(method.status).toBe(400);
    expect(method.body.error.code).toBe('INVALID_AUTH_METHOD');
  });

  it('says why a request is unauthorized: missing, invalid', async () => {
    const missing = await c.http.get(`${C}/current-identity`);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toContain('missing');
    const invalid = await c.http.get(`${C}/current-identity`, { session: 'garbage' });
    expect(invalid.status).toBe(401);
    expect(invalid.headers['www-authenticate']).toContain('invalid');
  });

  it('ends the session on logout', async () => {
    const token = await c.login();
    await c.http.delete(`${C}/current-api-session`, { session: token, expectStatus: 200 });
    const after = await c.http.get(`${C}/current-identity`, { session: token });
    expect(after.status).toBe(401);
  });

  it('expires a session that has been idle past the timeout', async () => {
    const login = await c.http.post(`${C}/authenticate?method=password`, { body: ADMIN, expectStatus: 200 });
    // Aged before its first use, so no principal of it is cached (a cached one never outlives
    // the expiry it was validated with: http/session-cache.test.ts).
    await c.query(`UPDATE ${c.schema('auth')}.api_sessions SET last_activity_at = now() - interval '2 hours' WHERE id = $1`, [login.body.data.id]);
    const r = await c.http.get(`${C}/current-identity`, { session: login.body.data.token });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toContain('expired');
  });

  it('refuses management calls from a non-admin with 401, but serves its own client calls', async () => {
    const admin = await c.login();
    const user = await createPasswordIdentity(c, admin, 'plain-user', 'plain-password');
    const mgmt = await c.http.get(`${M}/identities`, { session: user.token });
    expect(mgmt.status).toBe(401);
    expect(mgmt.body.error.code).toBe('UNAUTHORIZED');
    const me = await c.http.get(`${C}/current-identity`, { session: user.token, expectStatus: 200 });
    expect(me.body.data).toMatchObject({ id: user.id, isAdmin: false });
  });

  it('sees a promotion to admin on the next request', async () => {
    const admin = await c.login();
    const user = await createPasswordIdentity(c, admin, 'promoted-user', 'plain-password');
    expect((await c.http.get(`${M}/identities`, { session: user.token })).status).toBe(401);
    await c.http.patch(`${M}/identities/${user.id}`, { body: { isAdmin: true }, session: admin, expectStatus: 200 });
    // Well within the cache lifetime: only the identity-updated event can make this pass in time.
    await waitFor(async () => (await c.http.get(`${M}/identities`, { session: user.token, skipValidation: true })).status === 200, 2_500);
  });

  it('carries a rename and new role attributes into the principal within a second (identity → NATS → auth → gateway)', async () => {
    const admin = await c.login();
    const user = await createPasswordIdentity(c, admin, 'renamed-user', 'plain-password');
    const svc = await c.http.post(`${M}/services`, { body: { name: 'for-movers', encryptionRequired: true, roleAttributes: ['moving'] }, session: admin, expectStatus: 201 });
    await c.http.post(`${M}/service-policies`, {
      body: { name: 'movers-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#movers'], serviceRoles: ['#moving'] }, session: admin, expectStatus: 201,
    });
    const visible = async () => (await c.http.get(`${C}/services`, { session: user.token, expectStatus: 200 })).body.data.map((x: { id: string }) => x.id);
    expect(await visible()).not.toContain(svc.body.data.id);
    await c.http.patch(`${M}/identities/${user.id}`, { body: { name: 'moved-user', roleAttributes: ['movers'] }, session: admin, expectStatus: 200 });
    await waitFor(async () => {
      const cur = await c.http.get(`${C}/current-api-session`, { session: user.token, expectStatus: 200 });
      return cur.body.data.identity.name === 'moved-user' && (await visible()).includes(svc.body.data.id);
    }, 1_000);
  });

  it('ends the API sessions of a deleted identity (identity → NATS → auth)', async () => {
    const admin = await c.login();
    const user = await createPasswordIdentity(c, admin, 'doomed-user', 'plain-password');
    await c.http.get(`${C}/current-identity`, { session: user.token, expectStatus: 200 });
    await c.http.delete(`${M}/identities/${user.id}`, { session: admin, expectStatus: 200 });
    await waitFor(async () => (await sessionRows(user.id)) === 0);
    const r = await c.http.get(`${C}/current-api-session`, { session: user.token });
    expect(r.status).toBe(401);
    const login = await c.http.post(`${C}/authenticate?method=password`, { body: { username: 'doomed-user', password: 'plain-password' } });
    expect(login.status).toBe(401);
  });
});

async function sessionRows(identityId: string): Promise<number> {
  const [r] = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${c.schema('auth')}.api_sessions WHERE identity_id = $1`, [identityId]);
  return r!.n;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
