/**
 * `GET /current-identity` answers from the gateway's cache of callers' identities and the
 * caller's principal, which carries its authenticators and MFA state: no gRPC call once both are
 * cached, and changes to the identity, its reported environment and its authenticators show
 * without waiting for the entries to age out.
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
  it('answers a cached session without a call, the authenticators coming with the principal', async () => {
    const u = await createPasswordIdentity(c, admin, 'ci-no-call', 'ci-no-call-secret');
    await me(u.token); // the principal and the identity are cached from here on
    const methods = ['GetIdentity', 'GetIdentityAuthSummaries', 'ValidateSession'];
    const before = await grpcCallsOf(...methods);
    const data = await me(u.token);
    expect(await grpcCallsOf(...methods)).toEqual(before);
    expect(data).toMatchObject({ id: u.id, hasApiSession: true, isMfaEnabled: false, authenticators: { updb: { username: 'ci-no-call' } } });
  });

  it('shows an administrator\'s change to the identity on the next request', async () => {
    const u = await createPasswordIdentity(c, admin, 'ci-identity-change', 'ci-identity-change-secret');
    expect(await me(u.token)).toMatchObject({ name: 'ci-identity-change', roleAttributes: [] });
    await c.http.patch(`${M}/identities/${u.id}`, { body: { name: 'ci-identity-renamed', roleAttributes: ['moved'], appData: { k: 'v' } }, session: admin, expectStatus: 200 });
    expect(await me(u.token)).toMatchObject({ name: 'ci-identity-renamed', roleAttributes: ['moved'], appData: { k: 'v' } });
  });

  it('shows the environment a client reported at a later login', async () => {
    const u = await createPasswordIdentity(c, admin, 'ci-environment', 'ci-environment-secret');
    await me(u.token);
    const envInfo = { arch: 'ci-arch', os: 'ci-os', osRelease: '6.8.0', osVersion: '#1 SMP', domain: 'ci.example', hostname: 'ci-host' };
    const sdkInfo = { appId: 'ci-app', appVersion: '2.1', branch: 'main', revision: 'abc123', type: 'ci-sdk', version: '1.2.3' };
    await c.http.post(`${C}/authenticate?method=password`, {
      body: { username: 'ci-environment', password: 'ci-environment-secret', envInfo, sdkInfo }, expectStatus: 200,
    });
    // Recorded from the login's event, a moment after it was answered, every field as reported.
    await expect.poll(async () => (await me(u.token)).envInfo, { timeout: 3_000, interval: 50 }).toEqual(envInfo);
    expect((await me(u.token)).sdkInfo).toEqual(sdkInfo);
    expect((await c.http.get(`${M}/identities/${u.id}`, { session: admin, expectStatus: 200 })).body.data).toMatchObject({ envInfo, sdkInfo });
    // A later login reporting less answers only what it reported, with no empty fields for the rest.
    await c.http.post(`${C}/authenticate?method=password`, {
      body: { username: 'ci-environment', password: 'ci-environment-secret', envInfo: { os: 'ci-os-2', arch: '' }, sdkInfo: { type: 'ci-sdk' } }, expectStatus: 200,
    });
    await expect.poll(async () => (await me(u.token)).envInfo, { timeout: 3_000, interval: 50 }).toEqual({ os: 'ci-os-2', arch: '' });
    expect((await me(u.token)).sdkInfo).toEqual({ type: 'ci-sdk' });
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
