/**
 * The principal carries the identity's authenticators and MFA state, and every change to them
 * announces `edge.auth.principal.updated` for identities that have an API session (so caches of
 * principals drop them), whichever statement made the change.
 */
import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';

describe('the principal and its authenticator summary', () => {
  let h: Harness;
  let client: RpcClient<AuthServiceClient>;
  /** The principal.updated events waiting in the outbox, by identity. */
  const recorded = async () => (await h.db.selectFrom('outbox').select(['subject', 'data']).where('subject', '=', 'edge.auth.principal.updated').execute())
    .map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data).identityId as string);

  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret' });
    ({ client } = await h.startAuth());
  });
  afterAll(async () => h?.close());

  it('validates a session into a principal with the summary GetIdentityAuthSummaries answers', async () => {
    const user = await h.addUser('summarised', 'summarised-secret');
    const s = await client.authenticate({ method: 'password', username: 'summarised', password: 'summarised-secret' });
    const principal = await client.validateSession({ token: s.token, bearerToken: '' });
    const { summaries } = await client.getIdentityAuthSummaries({ identityIds: [user.id!] });
    expect(principal.authSummary).toEqual(summaries[0]);
    expect(principal.authSummary).toMatchObject({ identityId: user.id, updbUsername: 'summarised', hasApiSession: true, isMfaEnabled: false });
  });

  it('records principal.updated for a renamed authenticator of an identity with an API session, in the same statement', async () => {
    const user = await h.addUser('renamed', 'renamed-secret');
    await client.authenticate({ method: 'password', username: 'renamed', password: 'renamed-secret' });
    // A statement straight on the table: no code path has to remember the event.
    await h.db.transaction().execute(async (trx) => {
      await trx.updateTable('authenticators').set({ username: 'renamed-again' }).where('identity_id', '=', user.id!).execute();
      const inTrx = await trx.selectFrom('outbox').select('data').where('subject', '=', 'edge.auth.principal.updated').execute();
      expect(inTrx.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data).identityId)).toContain(user.id);
    });
  });

  it('records nothing for identities without an API session, nor for failed-attempt counters', async () => {
    const idle = await h.addUser('idle', 'idle-secret');
    const active = await h.addUser('active', 'active-secret');
    await client.authenticate({ method: 'password', username: 'active', password: 'active-secret' });
    // Let the relay empty the outbox of what the logins recorded.
    await expect.poll(async () => (await recorded()).filter((id) => id === idle.id || id === active.id), { timeout: 5_000 }).toEqual([]);
    await h.db.updateTable('authenticators').set({ username: 'idle-renamed' }).where('identity_id', '=', idle.id!).execute();
    await h.db.updateTable('authenticators').set({ failed_attempts: 3 }).where('identity_id', '=', active.id!).execute();
    expect((await recorded()).filter((id) => id === idle.id || id === active.id)).toEqual([]);
  });
});
