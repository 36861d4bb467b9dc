import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness.js';

const fields = (name: string, updb: { maxAttempts?: number; lockoutDurationMinutes?: number; allowed?: boolean } = {}) => ({
  name,
  cert: { allowed: true, allowExpiredCerts: true },
  extJwt: { allowed: true, allowedSigners: [] },
  updb: { allowed: true, minPasswordLength: 5, maxAttempts: 0, lockoutDurationMinutes: 0, ...updb },
  secondary: { requireTotp: false },
  tagsJson: '{}',
});

describe('auth policies', () => {
  let h: Harness;
  let a: RpcClient<AuthServiceClient>;
  let b: RpcClient<AuthServiceClient>;

  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret' });
    ({ client: a } = await h.startAuth());
    ({ client: b } = await h.startAuth());
  });
  afterAll(() => h?.close());

  it('counts consecutive failures in Postgres, so failures on different replicas add up to a lockout', async () => {
    const { id: policyId } = await a.createAuthPolicy({ fields: fields('three strikes', { maxAttempts: 3, lockoutDurationMinutes: 10 }) });
    const user = await h.addUser('striker', 'striker-secret', { authPolicyId: policyId });
    const wrong = (c: RpcClient<AuthServiceClient>) => c.authenticate({ method: 'password', username: 'striker', password: 'nope!' });
    await expect(wrong(a)).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    await expect(wrong(b)).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    expect(h.identity.disables).toEqual([]);
    await expect(wrong(a)).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    expect(h.identity.disables).toEqual([{ id: user.id, durationMinutes: 10 }]);
    await expect(b.authenticate({ method: 'password', username: 'striker', password: 'striker-secret' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    const row = await h.db.selectFrom('authenticators').select(['failed_attempts', 'locked_until']).where('identity_id', '=', user.id!).executeTakeFirstOrThrow();
    expect(row.failed_attempts).toBe(0);
    expect(row.locked_until.getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
  });

  // regression: the correct password got in while the identity service had not yet disabled an
  // identity that maxAttempts failures had locked (the lockout lived only in the identity service)
  it('refuses the correct password once maxAttempts failures are recorded, before the identity service has disabled the identity', async () => {
    const { id: policyId } = await a.createAuthPolicy({ fields: fields('race', { maxAttempts: 2, lockoutDurationMinutes: 0 }) });
    const user = await h.addUser('racer', 'racer-secret', { authPolicyId: policyId });
    const wrong = () => a.authenticate({ method: 'password', username: 'racer', password: 'nope!' });
    await expect(wrong()).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    let open!: () => void;
    h.identity.disableGate = new Promise((r) => (open = r));
    const locking = wrong().catch((e: unknown) => e);
    await vi.waitFor(() => expect(h.identity.disables.some((d) => d.id === user.id)).toBe(true));
    // the lockout is recorded; the identity service is still busy disabling the identity
    await expect(b.authenticate({ method: 'password', username: 'racer', password: 'racer-secret' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    open();
    h.identity.disableGate = undefined;
    expect(await locking).toMatchObject({ code: 'INVALID_AUTH' });
  });

  it('lifts a lockout "until enabled" when the identity is enabled again', async () => {
    const { id: policyId } = await a.createAuthPolicy({ fields: fields('until enabled', { maxAttempts: 1, lockoutDurationMinutes: 0 }) });
    const user = await h.addUser('enabled-later', 'enabled-secret', { authPolicyId: policyId });
    await expect(a.authenticate({ method: 'password', username: 'enabled-later', password: 'nope!' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    user.disabled = false; // as if the identity service had enabled it, but its event is still on its way
    await expect(a.authenticate({ method: 'password', username: 'enabled-later', password: 'enabled-secret' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    await h.bus.publish('edge.identity.identity.updated', { id: user.id, disabled: false });
    await vi.waitFor(async () => {
      await expect(b.authenticate({ method: 'password', username: 'enabled-later', password: 'enabled-secret' })).resolves.toMatchObject({ identityId: user.id });
    }, { timeout: 5_000 });
  });

  it('ends the API sessions of a disabled identity but keeps its authenticators', async () => {
    const user = await h.addUser('benched', 'benched-secret');
    const s = await a.authenticate({ method: 'password', username: 'benched', password: 'benched-secret' });
    await h.bus.publish('edge.identity.identity.disabled', { id: user.id });
    await vi.waitFor(async () => {
      expect(await h.db.selectFrom('api_sessions').select('id').where('id', '=', s.id).execute()).toEqual([]);
    }, { timeout: 5_000 });
    expect(await h.db.selectFrom('authenticators').select('id').where('identity_id', '=', user.id!).execute()).toHaveLength(1);
  });

  it('refuses to delete a policy in use or the default one, and updates one by id', async () => {
    const { id } = await a.createAuthPolicy({ fields: fields('used') });
    h.identity.add({ name: 'uses-it', authPolicyId: id });
    await expect(a.deleteAuthPolicy({ id })).rejects.toMatchObject({ code: 'CAN_NOT_DELETE_REFERENCED_ENTITY', status: 409 });
    await expect(a.deleteAuthPolicy({ id: 'default' })).rejects.toMatchObject({ code: 'CAN_NOT_DELETE_REFERENCED_ENTITY', status: 409 });
    await a.updateAuthPolicy({ id, fields: fields('renamed', { allowed: false }) });
    expect((await b.getAuthPolicy({ id })).fields).toMatchObject({ name: 'renamed', updb: { allowed: false } });
    await expect(a.updateAuthPolicy({ id: 'nope', fields: fields('x') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
