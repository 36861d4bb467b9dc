/**
 * `GET /current-identity` answers from the identity service and the caller's principal, which
 * carries its authenticators and MFA state: one gRPC call once the session is cached, and
 * changes to the authenticators show without waiting for the principal to age out.
 */
import { describe, expect, it } from 'vitest';
import { useController, type TestController } from '../support/controller.js';
import { grpcCallsOf } from '../support/metrics.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
let c: TestController;
let admin: string;

useController((f) => ({ c, admin } = f));

const me = async (session: string) => (await c.http.get(`${C}/current-identity`, { session, expectStatus: 200 })).body.data;

describe('current-identity', () => {
  it('answers a cached session with one call, the authenticators coming with the principal', async () => {
    const u = await createPasswordIdentity(c, admin, 'ci-one-call', 'ci-one-call-secret');
    await me(u.token); // the principal is cached from here on
    const methods = ['GetIdentity', 'GetIdentityAuthSummaries', 'ValidateSession'];
    const before = await grpcCallsOf(...methods);
    const data = await me(u.token);
    expect(await grpcCallsOf(...methods)).toEqual({ ...before, GetIdentity: before.GetIdentity! + 1 });
    expect(data).toMatchObject({ id: u.id, hasApiSession: true, isMfaEnabled: false, authenticators: { updb: { username: 'ci-one-call' } } });
  });

  it('shows an administrator\'s change to the identity\'s authenticators well before its principal would age out', async () => {
    const u = await createPasswordIdentity(c, admin, 'ci-admin-change', 'ci-admin-change-secret');
    expect((await me(u.token)).authenticators.updb.username).toBe('ci-admin-change');
    const list = await c.http.get(`${M}/authenticators?filter=${encodeURIComponent(`identity = "${u.id}"`)}`, { session: admin, expectStatus: 200 });
    const authenticatorId = list.body.data[0].id as string;
    await c.http.patch(`${M}/authenticators/${authenticatorId}`, { body: { username: 'ci-admin-renamed' }, session: admin, expectStatus: 200 });
    await expect.poll(async () => (await me(u.token)).authenticators.updb.username, { timeout: 3_000, interval: 50 }).toBe('ci-admin-renamed');
  });

  it('shows the caller\'s own change to its authenticator on its next request', async () => {
    const u = await createPasswordIdentity(c, admin, 'ci-self-change', 'ci-self-change-secret');
    const mine = (await c.http.get(`${C}/current-identity/authenticators`, { session: u.token, expectStatus: 200 })).body.data[0];
    expect((await me(u.token)).authenticators.updb.username).toBe('ci-self-change');
    await c.http.put(`${C}/current-identity/authenticators/${mine.id}`, {
      body: { username: 'ci-self-renamed', password: 'ci-self-change-secret', currentPassword: 'ci-self-change-secret', tags: {} }, session: u.token, expectStatus: 200,
    });
    expect((await me(u.token)).authenticators.updb.username).toBe('ci-self-renamed');
  });
});
