import { connect, headers, JSONCodec } from 'nats';
import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { startNatsServer, type TestNatsServer } from '@edge/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness.js';

const policy = (name: string) => ({
  name,
  cert: { allowed: true, allowExpiredCerts: true },
  extJwt: { allowed: true, allowedSigners: [] },
  updb: { allowed: true, minPasswordLength: 5, maxAttempts: 1, lockoutDurationMinutes: 0 },
  secondary: { requireTotp: false },
  tagsJson: '{}',
});

describe('auth events through the outbox', () => {
  let nats: TestNatsServer;
  let h: Harness;
  let client: RpcClient<AuthServiceClient>;
  const deleted: Array<{ data: { id: string; identityId: string }; eventId?: string }> = [];
  const outboxRows = async () => (await h.db.selectFrom('outbox').select('subject').execute()).length;

  beforeAll(async () => {
    // A NATS of this file's own, so the test can take it away.
    nats = await startNatsServer();
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret', EDGE_RECONCILE_INTERVAL_MS: '1000' }, undefined, nats.url);
    await h.bus.consume<{ id: string; identityId: string }>('test', 'edge.auth.api-session.deleted', async (m) => {
      deleted.push({ data: m.data, eventId: m.eventId });
    });
    ({ client } = await h.startAuth());
  });
  afterAll(async () => {
    await h?.close();
    await nats?.close();
  });

  it('records the end of an API session with its delete and relays it, leaving the outbox empty', async () => {
    const user = await h.addUser('leaver', 'leaver-secret');
    const s = await client.authenticate({ method: 'password', username: 'leaver', password: 'leaver-secret' });
    await client.deleteApiSession({ id: s.id });
    await vi.waitFor(() => expect(deleted.map((d) => d.data)).toContainEqual({ id: s.id, identityId: user.id }), { timeout: 5_000 });
    expect(deleted.find((d) => d.data.id === s.id)?.eventId).toMatch(/^[0-9a-f-]{36}$/);
    await vi.waitFor(async () => expect(await outboxRows()).toBe(0));
  });

  // regression: with NATS down, a logout committed and then answered 500 after 5 s, and its
  // event was lost for good (the sessions of that API session stayed)
  it('answers a logout at once while NATS is down, and delivers its event once NATS is back', async () => {
    const user = await h.addUser('offline', 'offline-secret');
    const s = await client.authenticate({ method: 'password', username: 'offline', password: 'offline-secret' });
    await nats.stop();
    try {
      const started = Date.now();
      await client.deleteApiSession({ id: s.id });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await h.db.selectFrom('api_sessions').select('id').where('id', '=', s.id).execute()).toEqual([]);
      expect(await outboxRows()).toBe(1);
    } finally {
      await nats.start();
    }
    await vi.waitFor(() => expect(deleted.map((d) => d.data)).toContainEqual({ id: s.id, identityId: user.id }), { timeout: 15_000 });
    await vi.waitFor(async () => expect(await outboxRows()).toBe(0));
    expect(deleted.filter((d) => d.data.id === s.id)).toHaveLength(1);
  });

  // regression: a repeat of an old "identity enabled" event (a redelivery, or a relay retry the
  // stream no longer deduplicates) lifted a lockout made after it
  it('skips an event its consumer already handled, so a stale repeat changes nothing', async () => {
    const { id: policyId } = await client.createAuthPolicy({ fields: policy('one strike') });
    const first = await h.addUser('first', 'first-secret', { authPolicyId: policyId });
    const marker = await h.addUser('marker', 'marker-secret', { authPolicyId: policyId });
    const lock = (username: string) => expect(client.authenticate({ method: 'password', username, password: 'nope!' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    const canLogIn = (username: string) => client.authenticate({ method: 'password', username, password: `${username}-secret` }).then(() => true, () => false);
    // Published without a JetStream message id, so the stream keeps both copies of one event.
    const nc = await connect({ servers: h.nats.url });
    const publishRaw = async (data: unknown, eventId: string) => {
      const h2 = headers();
      h2.set('edge-event-id', eventId);
      await nc.jetstream().publish(`${h.nats.subjectPrefix}edge.identity.identity.updated`, JSONCodec().encode(data), { headers: h2 });
    };
    // The stand-in identity service: enabled again, as the event says (lockouts also disable it there).
    const enable = (...who: typeof first[]) => who.forEach((i) => { i.disabled = false; });
    try {
      await lock('first');
      enable(first);
      await publishRaw({ id: first.id, disabled: false }, 'enabled-once');
      await vi.waitFor(async () => expect(await canLogIn('first')).toBe(true), { timeout: 5_000 });
      await lock('first');
      await lock('marker');
      enable(first, marker);
      await publishRaw({ id: first.id, disabled: false }, 'enabled-once');
      await publishRaw({ id: marker.id, disabled: false }, 'marker');
      // One consumer handles the subject in order: once the marker is handled, so is the repeat.
      await vi.waitFor(async () => expect(await canLogIn('marker')).toBe(true), { timeout: 5_000 });
      expect(await canLogIn('first')).toBe(false);
    } finally {
      await nc.close();
    }
  });

  it('ends, on its periodic reconciliation, the sessions and authenticators of an identity deleted while its event was lost', async () => {
    const user = await h.addUser('vanished', 'vanished-secret');
    const s = await client.authenticate({ method: 'password', username: 'vanished', password: 'vanished-secret' });
    h.identity.identities.delete(user.id!); // gone, and nobody told the auth service
    await vi.waitFor(async () => {
      expect(await h.db.selectFrom('api_sessions').select('id').where('id', '=', s.id).execute()).toEqual([]);
      expect(await h.db.selectFrom('authenticators').select('id').where('identity_id', '=', user.id!).execute()).toEqual([]);
    }, { timeout: 10_000 });
    await vi.waitFor(() => expect(deleted.map((d) => d.data)).toContainEqual({ id: s.id, identityId: user.id }), { timeout: 5_000 });
  });
});
