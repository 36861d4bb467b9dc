/**
 * Every write that changes an identity's auth summary (its authenticators' ids, username and
 * fingerprint, whether it has an API session, whether MFA is enabled) announces an event naming
 * the identity, recorded with the write, so caches of the summary can drop that identity's entry.
 */
import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness.js';

describe('events of the identity auth summary', () => {
  let h: Harness;
  let client: RpcClient<AuthServiceClient>;
  const seen: Array<{ subject: string; data: Record<string, string> }> = [];
  const ofIdentity = (identityId: string) => seen.filter((e) => e.data.identityId === identityId);
  const login = (username: string) => client.authenticate({ method: 'password', username, password: `${username}-secret` });

  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret' });
    await h.bus.subscribe<Record<string, string>>('edge.auth.>', async (m) => { seen.push({ subject: m.subject, data: m.data }); });
    ({ client } = await h.startAuth());
  });
  afterAll(async () => h?.close());

  it('announces an identity\'s first API session, with empty environment strings when the client reported none', async () => {
    const user = await h.addUser('plain', 'plain-secret');
    const s = await login('plain');
    await vi.waitFor(() => expect(ofIdentity(user.id!)).toContainEqual({
      subject: 'edge.auth.api-session.created', data: { id: s.id, identityId: user.id, envInfoJson: '', sdkInfoJson: '' },
    }));
  });

  it('announces a further API session only when its client reported an environment, and a first one again after the last ended', async () => {
    const user = await h.addUser('repeat', 'repeat-secret');
    const created = () => ofIdentity(user.id!).filter((e) => e.subject === 'edge.auth.api-session.created').map((e) => e.data.id);
    const first = await login('repeat');
    await vi.waitFor(() => expect(created()).toEqual([first.id]));
    const quiet = await login('repeat');
    const reported = await client.authenticate({ method: 'password', username: 'repeat', password: 'repeat-secret', envInfo: { os: 'linux' } });
    await vi.waitFor(() => expect(created()).toEqual([first.id, reported.id]));
    expect(created()).not.toContain(quiet.id);
    for (const s of [first, quiet, reported]) await client.deleteApiSession({ id: s.id });
    const again = await login('repeat');
    await vi.waitFor(() => expect(created()).toEqual([first.id, reported.id, again.id]));
  });

  it('announces a login that raced the end of the identity\'s only other API session', async () => {
    const user = await h.addUser('racer', 'racer-secret');
    const created = () => ofIdentity(user.id!).filter((e) => e.subject === 'edge.auth.api-session.created').map((e) => e.data.id);
    const only = await login('racer');
    await vi.waitFor(() => expect(created()).toEqual([only.id]));
    // The only other session is being deleted, not yet committed, while the login stores its own.
    let second: Promise<{ id: string }> | undefined;
    await h.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('api_sessions').where('id', '=', only.id).execute();
      second = login('racer');
      await new Promise((resolve) => setTimeout(resolve, 500));
    });
    const { id } = await second!;
    // Otherwise a reader that saw the deletion would hold "no API session" while this one lives.
    await vi.waitFor(() => expect(created()).toEqual([only.id, id]));
  });

  it('announces an authenticator created, renamed and deleted, with its identity', async () => {
    const user = h.identity.add({ name: 'managed' });
    const { id } = await client.createAuthenticator({ identityId: user.id!, method: 'updb', username: 'managed', password: 'managed-secret', certPem: '', tagsJson: '{}' });
    await client.updateAuthenticator({ id, ownerIdentityId: '', username: 'managed-renamed', password: '', tagsJson: '{}', updateMask: ['username'] });
    await client.deleteAuthenticator({ id, ownerIdentityId: '' });
    await vi.waitFor(() => expect(ofIdentity(user.id!)).toEqual(['created', 'updated', 'deleted'].map((what) => ({
      subject: `edge.auth.authenticator.${what}`, data: { id, identityId: user.id },
    }))));
  });

  it('announces an authenticator an enrollment created', async () => {
    const user = h.identity.add({ name: 'enrolled' });
    const { id } = await client.createUpdbAuthenticator({ identityId: user.id!, username: 'enrolled', password: 'Good-Password1' });
    await vi.waitFor(() => expect(ofIdentity(user.id!)).toEqual([{ subject: 'edge.auth.authenticator.created', data: { id, identityId: user.id } }]));
  });

  it('announces nothing for a refused write (a username in use)', async () => {
    await h.addUser('taken', 'taken-secret');
    const refused = h.identity.add({ name: 'refused' });
    const marker = h.identity.add({ name: 'marker' });
    const create = (identityId: string, username: string) =>
      client.createAuthenticator({ identityId, method: 'updb', username, password: 'some-secret', certPem: '', tagsJson: '{}' });
    await expect(create(refused.id!, 'taken')).rejects.toMatchObject({ fieldCause: { field: 'username' } });
    await create(marker.id!, 'marker');
    // Events leave in the order they were recorded: once the marker's arrived, the refused write's would have.
    await vi.waitFor(() => expect(ofIdentity(marker.id!)).toHaveLength(1));
    expect(ofIdentity(refused.id!)).toEqual([]);
  });

  it('announces an MFA enrollment verified', async () => {
    await h.addUser('mfa-user', 'mfa-user-secret');
    const s = await login('mfa-user');
    await client.enrollMfa({ apiSessionId: s.id });
    const detail = await client.detailMfa({ apiSessionId: s.id });
    const secret = new URL(detail.provisioningUrl).searchParams.get('secret')!;
    await client.verifyMfa({ apiSessionId: s.id, code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) - 30 }) });
    await vi.waitFor(() => expect(ofIdentity(s.identityId)).toContainEqual({ subject: 'edge.auth.mfa.verified', data: { id: detail.id, identityId: s.identityId } }));
  });

  it('announces the authenticators a deleted identity takes with it', async () => {
    const user = await h.addUser('departed', 'departed-secret');
    const authenticator = await h.db.selectFrom('authenticators').select('id').where('identity_id', '=', user.id!).executeTakeFirstOrThrow();
    h.identity.identities.delete(user.id!);
    await h.bus.publish('edge.identity.identity.deleted', { id: user.id });
    await vi.waitFor(() => expect(ofIdentity(user.id!)).toContainEqual({ subject: 'edge.auth.authenticator.deleted', data: { id: authenticator.id, identityId: user.id } }));
  });
});
