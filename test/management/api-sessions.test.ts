/**
 * Management `/api-sessions`: every identity's sessions listed with filters, read without their
 * token, and ended by an administrator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const M = '/edge/management/v1';
const C = '/edge/client/v1';
let c: TestController;
let admin: string;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

describe('management API sessions', () => {
  it('lists every identity\'s sessions with filters, and reads one without its token', async () => {
    const alice = await createPasswordIdentity(c, admin, 'alice-sessions', 'alice-password');
    const all = await c.http.get(`${M}/api-sessions?limit=100`, { session: admin, expectStatus: 200 });
    const ids = all.body.data.map((s: { identityId: string }) => s.identityId);
    expect(ids).toContain(alice.id);
    expect(all.body.meta.pagination.totalCount).toBe(all.body.data.length);
    expect(all.body.data.every((s: { token: string }) => s.token === '')).toBe(true);
    expect(JSON.stringify(all.body)).not.toContain(alice.token);

    const mine = await c.http.get(`${M}/api-sessions?filter=${encodeURIComponent(`identityId = "${alice.id}"`)}`, { session: admin, expectStatus: 200 });
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.data[0]).toMatchObject({ identityId: alice.id, identity: { id: alice.id, name: 'alice-sessions' }, isMfaRequired: false });
    expect(mine.body.meta.filterableFields).toContain('lastActivityAt');

    const one = await c.http.get(`${M}/api-sessions/${mine.body.data[0].id}`, { session: admin, expectStatus: 200 });
    expect(one.body.data).toMatchObject({ id: mine.body.data[0].id, identityId: alice.id, token: '' });
  });

  it('ends a session an administrator deletes, and refuses non-admins', async () => {
    const bob = await createPasswordIdentity(c, admin, 'bob-sessions', 'bob-password');
    await c.http.get(`${C}/current-identity`, { session: bob.token, expectStatus: 200 });
    expect((await c.http.get(`${M}/api-sessions`, { session: bob.token })).status).toBe(401);
    const mine = await c.http.get(`${M}/api-sessions?filter=${encodeURIComponent(`identityId = "${bob.id}"`)}`, { session: admin, expectStatus: 200 });
    await c.http.delete(`${M}/api-sessions/${mine.body.data[0].id}`, { session: admin, expectStatus: 200 });
    await expect.poll(async () => (await c.http.get(`${C}/current-identity`, { session: bob.token })).status, { timeout: 4_000 }).toBe(401);
    await c.http.delete(`${M}/api-sessions/${mine.body.data[0].id}`, { session: admin, expectStatus: 404 });
    await c.http.get(`${M}/api-sessions/nope`, { session: admin, expectStatus: 404 });
    expect((await c.http.get(`${M}/api-sessions?filter=${encodeURIComponent('token = "x"')}`, { session: admin, expectStatus: 400 })).body.error.code).toBe('INVALID_FILTER');
  });
});
