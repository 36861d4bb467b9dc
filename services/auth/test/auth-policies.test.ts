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
    const row = await h.db.selectFrom('authenticators').select('failed_attempts').where('identity_id', '=', user.id!).executeTakeFirstOrThrow();
    expect(row.failed_attempts).toBe(0);
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
