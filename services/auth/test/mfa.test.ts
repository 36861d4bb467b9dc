import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness.js';

describe('MFA', () => {
  let h: Harness;
  let client: RpcClient<AuthServiceClient>;
  const events: Array<{ subject: string; data: Record<string, string> }> = [];

  const login = (username: string) => client.authenticate({ method: 'password', username, password: `${username}-secret` });
  const secretOf = (url: string) => new URL(url).searchParams.get('secret')!;
  const codeAt = (secret: string, offsetSteps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

  /** A user with a verified enrollment; returns its secret and recovery codes. */
  async function enrolled(name: string) {
    await h.addUser(name, `${name}-secret`);
    const s = await login(name);
    await client.enrollMfa({ apiSessionId: s.id });
    const detail = await client.detailMfa({ apiSessionId: s.id });
    const secret = secretOf(detail.provisioningUrl);
    await client.verifyMfa({ apiSessionId: s.id, code: await codeAt(secret, -1) });
    return { session: s, secret, recoveryCodes: detail.recoveryCodes, mfaId: detail.id };
  }

  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret' });
    for (const subject of ['edge.auth.api-session.updated', 'edge.auth.mfa.deleted']) {
      await h.bus.subscribe<Record<string, string>>(subject, async (m) => {
        events.push({ subject, data: m.data });
      });
    }
    ({ client } = await h.startAuth());
  });
  afterAll(() => h?.close());

  it('keeps the TOTP secret sealed and recovery codes only as keyed hashes', async () => {
    const { secret, recoveryCodes, mfaId } = await enrolled('sealed');
    const dump = JSON.stringify([
      await h.db.selectFrom('mfas').selectAll().execute(),
      await h.db.selectFrom('mfa_recovery_codes').selectAll().execute(),
    ]);
    expect(dump).not.toContain(secret);
    for (const code of recoveryCodes) expect(dump).not.toContain(code);
    const hashes = await h.db.selectFrom('mfa_recovery_codes').select('code_hash').where('mfa_id', '=', mfaId).execute();
    expect(hashes).toHaveLength(20);
  });

  it('marks a login partial, completes it with a TOTP and publishes the change', async () => {
    const { secret } = await enrolled('partial');
    const s = await login('partial');
    expect(s).toMatchObject({ isMfaRequired: true, isMfaComplete: false });
    expect(s.authQueries).toEqual([expect.objectContaining({ typeId: 'MFA', httpUrl: './authenticate/mfa' })]);
    const done = await client.authenticateMfa({ apiSessionId: s.id, code: await codeAt(secret) });
    expect(done).toMatchObject({ isMfaRequired: true, isMfaComplete: true, authQueries: [] });
    await vi.waitFor(() => expect(events).toContainEqual({ subject: 'edge.auth.api-session.updated', data: { id: s.id, identityId: s.identityId } }));
    const { summaries } = await client.getIdentityAuthSummaries({ identityIds: [s.identityId] });
    expect(summaries[0]!.isMfaEnabled).toBe(true);
  });

  it('accepts one of two concurrent requests with the same code (no replay across replicas)', async () => {
    const { secret } = await enrolled('racer');
    const { client: replica } = await h.startAuth();
    const [a, b] = [await login('racer'), await login('racer')];
    const code = await codeAt(secret, 1);
    const results = await Promise.allSettled([
      client.authenticateMfa({ apiSessionId: a.id, code }),
      replica.authenticateMfa({ apiSessionId: b.id, code }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'MFA_INVALID_TOKEN' } });
  });

  it('answers MFA_NOT_ENROLLED without a verified enrollment, and MFA_EXISTS on a second enrollment', async () => {
    await h.addUser('plain', 'plain-secret');
    const s = await login('plain');
    await expect(client.authenticateMfa({ apiSessionId: s.id, code: '123456' })).rejects.toMatchObject({ code: 'MFA_NOT_ENROLLED' });
    await client.enrollMfa({ apiSessionId: s.id });
    await expect(client.enrollMfa({ apiSessionId: s.id })).rejects.toMatchObject({ code: 'MFA_EXISTS', status: 409 });
    await expect(client.authenticateMfa({ apiSessionId: s.id, code: '123456' })).rejects.toMatchObject({ code: 'MFA_NOT_ENROLLED' });
  });

  it('removes MFA for an admin, publishing the removal; an unknown identity is NOT_FOUND', async () => {
    const { session } = await enrolled('removed');
    await client.removeIdentityMfa({ identityId: session.identityId });
    await vi.waitFor(() => expect(events.some((e) => e.subject === 'edge.auth.mfa.deleted' && e.data.identityId === session.identityId)).toBe(true));
    expect((await login('removed')).isMfaRequired).toBe(false);
    await expect(client.removeIdentityMfa({ identityId: 'nobody' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('removes MFA with the identity', async () => {
    const { session } = await enrolled('deleted');
    await h.bus.publish('edge.identity.identity.deleted', { id: session.identityId });
    await vi.waitFor(async () => {
      expect(await h.db.selectFrom('mfas').select('id').where('identity_id', '=', session.identityId).execute()).toEqual([]);
    }, { timeout: 5_000 });
  });
});
