/**
 * The management identity list and detail answer a repeated read from what the gateway keeps
 * (http/identity-listing.ts): no gRPC call, and every change to what they show, whoever made it
 * and through whichever API, shows on a following read, without waiting for anything to age out.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useController, type TestController } from '../support/controller.js';
import { grpcCallsOf } from '../support/metrics.js';
import { createPasswordIdentity } from '../support/password-identity.js';
import { authenticatorFor } from '../support/totp.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
const METHODS = ['ListIdentities', 'GetIdentity', 'GetIdentityAuthSummaries', 'GetEnrollmentsOf'];
let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

type Identity = Record<string, any>;
let user: { id: string; token: string };
const filter = `filter=${encodeURIComponent('name contains "held-user"')}`;
const listed = async (): Promise<Identity> => {
  const r = await c.http.get(`${M}/identities?${filter}`, { session: admin, expectStatus: 200 });
  expect(r.body.data).toHaveLength(1);
  return r.body.data[0];
};
const detail = async (): Promise<Identity> => (await c.http.get(`${M}/identities/${user.id}`, { session: admin, expectStatus: 200 })).body.data;
/** Both answers, once each shows what `check` expects (a change heard as an event may take a moment). */
const bothShow = async (check: (i: Identity) => void) => {
  await expect.poll(async () => { check(await listed()); return true; }, { timeout: 3_000, interval: 50 }).toBe(true);
  check(await detail());
};

beforeAll(async () => {
  user = await createPasswordIdentity(c, admin, 'held-user', 'held-user-secret');
});

describe('held identity lists', () => {
  it('answers the same page and detail again without a call', async () => {
    // No page is held in the second after a change was heard (the identity was just made).
    await new Promise((r) => setTimeout(r, 1_100));
    const first = await listed();
    await detail();
    const before = await grpcCallsOf(...METHODS);
    expect(await listed()).toEqual(first);
    const d = await detail();
    const after = await grpcCallsOf(...METHODS);
    // Neither the page nor the detail makes a call.
    expect(after).toEqual(before);
    expect(d).toMatchObject({ id: user.id, hasApiSession: true, authenticators: { updb: { username: 'held-user' } } });
  });

  it('shows an administrator\'s change to the identity at once', async () => {
    await listed();
    await c.http.patch(`${M}/identities/${user.id}`, { body: { roleAttributes: ['held-attr'] }, session: admin, expectStatus: 200 });
    expect((await listed()).roleAttributes).toEqual(['held-attr']);
  });

  it('shows an enrollment an administrator adds and removes at once', async () => {
    await listed();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const made = await c.http.post(`${M}/enrollments`, { session: admin, body: { method: 'ott', identityId: user.id, expiresAt }, expectStatus: 201 });
    const withOtt = await listed();
    expect(withOtt.enrollment.ott).toMatchObject({ id: made.body.data.id });
    expect(withOtt.enrollment.ott.jwt).toEqual(expect.any(String));
    await c.http.delete(`${M}/enrollments/${made.body.data.id}`, { session: admin, expectStatus: 200 });
    expect((await listed()).enrollment).toEqual({});
  });

  it('shows the client\'s own logout and login, authenticator change and MFA', async () => {
    await bothShow((i) => expect(i.hasApiSession).toBe(true));
    await c.http.delete(`${C}/current-api-session`, { session: user.token, expectStatus: 200 });
    await bothShow((i) => expect(i.hasApiSession).toBe(false));
    user.token = await c.login('held-user', 'held-user-secret');
    await bothShow((i) => expect(i.hasApiSession).toBe(true));

    const mine = (await c.http.get(`${C}/current-identity/authenticators`, { session: user.token, expectStatus: 200 })).body.data[0];
    await c.http.put(`${C}/current-identity/authenticators/${mine.id}`, {
      body: { username: 'held-user-renamed', password: 'held-user-secret', currentPassword: 'held-user-secret', tags: {} }, session: user.token, expectStatus: 200,
    });
    await bothShow((i) => expect(i.authenticators.updb.username).toBe('held-user-renamed'));

    await c.http.post(`${C}/current-identity/mfa`, { session: user.token, expectStatus: 201 });
    const mfa = await c.http.get(`${C}/current-identity/mfa`, { session: user.token, expectStatus: 200 });
    await c.http.post(`${C}/current-identity/mfa/verify`, {
      session: user.token, body: { code: await authenticatorFor(mfa.body.data.provisioningUrl).next() }, expectStatus: 200,
    });
    await bothShow((i) => expect(i.isMfaEnabled).toBe(true));
  });

  it('keeps what an administrator was shown apart from what a non-admin reader is shown', async () => {
    const target = await c.http.post(`${M}/identities`, { session: admin, body: { name: 'held-admin-target', type: 'User', isAdmin: true, enrollment: { ott: true } }, expectStatus: 201 });
    await createPasswordIdentity(c, admin, 'held-reader', 'held-reader-secret');
    const readerId = (await c.http.get(`${M}/identities?filter=${encodeURIComponent('name = "held-reader"')}`, { session: admin, expectStatus: 200 })).body.data[0].id;
    await c.http.patch(`${M}/identities/${readerId}`, { session: admin, body: { permissions: ['identity.read'] }, expectStatus: 200 });
    const reader = await c.login('held-reader', 'held-reader-secret');
    await new Promise((r) => setTimeout(r, 1_100));
    const query = `${M}/identities?filter=${encodeURIComponent('name = "held-admin-target"')}`;
    for (let i = 0; i < 2; i++) {
      expect((await c.http.get(query, { session: admin, expectStatus: 200 })).body.data[0].enrollment.ott.id).toEqual(expect.any(String));
      // An admin's outstanding enrollment would let a non-admin enroll as that admin.
      const seen = (await c.http.get(query, { session: reader, expectStatus: 200 })).body.data[0];
      expect([seen.id, seen.enrollment]).toEqual([target.body.data.id, {}]);
    }
  });
});
