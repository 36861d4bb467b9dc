import { createHash } from 'node:crypto';
import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { PostgresQueryCompiler } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processMetrics } from '@edge/metrics';
import { createHarness, type FakeIdentity, type Harness } from './harness.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The SQL statements this process has sent (the auth service runs in it). */
const count = async () => {
  const metric = await processMetrics().registry.getSingleMetric('edge_db_statements_total')?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
};

describe('API sessions', () => {
  let h: Harness;
  let client: RpcClient<AuthServiceClient>;
  const deleted: Array<{ id: string; identityId: string }> = [];

  const addUser = (name: string, password: string, fields: Partial<FakeIdentity> = {}) => h.addUser(name, password, fields);
  const login = (username: string, password: string) => client.authenticate({ method: 'password', username, password });
  const ageSession = (id: string, ms: number) =>
    h.db.updateTable('api_sessions').set({ last_activity_at: new Date(Date.now() - ms) }).where('id', '=', id).execute();
  const sessionRow = (id: string) => h.db.selectFrom('api_sessions').selectAll().where('id', '=', id).executeTakeFirst() as Promise<Record<string, any>>;

  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret' });
    await h.bus.subscribe<{ id: string; identityId: string }>('edge.auth.api-session.deleted', async (m) => {
      deleted.push(m.data);
    });
    ({ client } = await h.startAuth());
    await addUser('alice', 'alice-secret');
    await addUser('bob', 'bob-secret', { disabled: true });
  });
  afterAll(() => h?.close());

  describe('Authenticate', () => {
    it('opens an API session whose token is stored only as its sha256', async () => {
      const s = await client.authenticate({
        method: 'password', username: 'alice', password: 'alice-secret',
        configTypes: ['intercept.v1'], remoteAddress: '10.1.2.3', envInfo: { os: 'linux' },
      });
      expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(s).toMatchObject({ identityName: 'alice', isAdmin: false, configTypes: ['intercept.v1'], ipAddress: '10.1.2.3', tagsJson: '{}' });
      expect(Date.parse(s.expiresAt) - Date.parse(s.lastActivityAt)).toBe(30 * 60_000);
      expect(s.expirationSeconds).toBeGreaterThan(1790);
      const row = await sessionRow(s.id);
      expect(row.token_hash).toBe(sha256(s.token));
      expect(row.authenticator_id).toBe(s.authenticatorId);
      const everything = JSON.stringify([
        await h.db.selectFrom('api_sessions').selectAll().execute(),
        await h.db.selectFrom('authenticators').selectAll().execute(),
      ]);
      expect(everything).not.toContain(s.token);
    });

    it.each([
      ['a wrong password', 'alice', 'nope'],
      ['an unknown username', 'nobody', 'alice-secret'],
      ['a disabled identity', 'bob', 'bob-secret'],
      ['a missing password', 'alice', ''],
      ['a missing username', '', 'alice-secret'],
    ])('answers %s with INVALID_AUTH', async (_, username, password) => {
      await expect(login(username, password)).rejects.toMatchObject({ code: 'INVALID_AUTH', status: 401 });
    });

    // The statements of a password login of an identity that has an API session already: its
    // authenticator by username; once the password is checked, its lockout, identity, auth policy
    // and MFA together; and the insert. Counted in this process (the auth service runs in it), the
    // fewest of five logins, as background work (the outbox relay) may add some to one of them.
    it('logs in by password in three statements, reading the authenticator by username once', async () => {
      await login('alice', 'alice-secret');
      let fewest = Infinity;
      for (let i = 0; i < 5; i++) {
        const before = await count();
        await login('alice', 'alice-secret');
        fewest = Math.min(fewest, (await count()) - before);
      }
      expect(fewest).toBe(3);
    });

    // Login's statements are compiled once: building and compiling a query costs the auth
    // service more than the database spends on it, on the path every SDK takes.
    it('builds no query for a password login once one has run, whether or not it reports its environment', async () => {
      // As SDKs log in: the session is then stored in a transaction with its event.
      const reporting = () => client.authenticate({ method: 'password', username: 'alice', password: 'alice-secret', envInfo: { os: 'linux' }, sdkInfo: { type: 't' } });
      await login('alice', 'alice-secret');
      await reporting();
      // The fewest of three tries, as background work of the service (a periodic sweep) may build
      // a query of its own while one runs.
      let fewest: string[] | undefined;
      for (let i = 0; i < 3 && fewest?.length !== 0; i++) {
        const compile = vi.spyOn(PostgresQueryCompiler.prototype, 'compileQuery');
        try {
          await login('alice', 'alice-secret');
          await reporting();
          const built = compile.mock.calls.map(([node]) => node.kind);
          if (!fewest || built.length < fewest.length) fewest = built;
        } finally {
          compile.mockRestore();
        }
      }
      expect(fewest).toEqual([]);
    });

    it('answers cert with INVALID_AUTH for now and an unknown method with INVALID_AUTH_METHOD', async () => {
      await expect(client.authenticate({ method: 'cert' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
      await expect(client.authenticate({ method: 'magic', username: 'alice', password: 'alice-secret' }))
        .rejects.toMatchObject({ code: 'INVALID_AUTH_METHOD', status: 400 });
    });
  });

  describe('ValidateSession', () => {
    it('returns the principal without the token', async () => {
      const s = await login('admin', 'admin-secret');
      const p = await client.validateSession({ token: s.token });
      expect(p).toMatchObject({ isAdmin: true, isDefaultAdmin: true });
      expect(p.apiSession).toMatchObject({ id: s.id, token: '', identityName: 'Default Admin', isAdmin: true });
    });

    // What every gateway replica asks once a minute for each token in use: the API session with
    // its identity and auth policy in one statement, then the identity's auth summary. Activity
    // is written back only when due (not here, right after login). The fewest of five, as background
    // work of the service (the outbox relay) may add a statement to one of them.
    it('validates a token in two statements, building no query once one has run', async () => {
      const s = await login('alice', 'alice-secret');
      await client.validateSession({ token: s.token });
      let fewest = Infinity;
      let built: string[] | undefined;
      for (let i = 0; i < 5; i++) {
        const compile = vi.spyOn(PostgresQueryCompiler.prototype, 'compileQuery');
        try {
          const before = await count();
          const p = await client.validateSession({ token: s.token });
          expect(p.apiSession).toMatchObject({ id: s.id, identityName: 'alice' });
          fewest = Math.min(fewest, (await count()) - before);
          const kinds = compile.mock.calls.map(([node]) => node.kind);
          if (!built || kinds.length < built.length) built = kinds;
        } finally {
          compile.mockRestore();
        }
      }
      expect(fewest).toBe(2);
      expect(built).toEqual([]);
    });

    // A gateway validates each token in use again once a minute, and the tokens of clients that
    // logged in together come due together.
    it('validates tokens asked for together in a few statements between them, activity written back included', async () => {
      // One login, and 23 more sessions of alice stored beside it (24 logins would be rate limited).
      const first = await login('alice', 'alice-secret');
      const { id: _, token_hash: __, ...row } = await sessionRow(first.id);
      const sessions = [first, ...Array.from({ length: 23 }, (_x, i) => ({ id: `${first.id}-${i}`, token: `${first.token}-${i}` }))];
      await h.db.insertInto('api_sessions').values(sessions.slice(1).map((s) => ({ ...row, id: s.id, token_hash: sha256(s.token) }))).execute();
      for (const s of sessions) await ageSession(s.id, 60_000);
      const before = await count();
      const principals = await Promise.all(sessions.map((s) => client.validateSession({ token: s.token })));
      const ran = (await count()) - before;
      expect(principals.map((p) => p.apiSession?.id)).toEqual(sessions.map((s) => s.id));
      for (const s of sessions) expect(Date.now() - ((await sessionRow(s.id)).last_activity_at as Date).getTime()).toBeLessThan(5_000);
      // Each alone: three statements (the session, its summary, its activity), 72 in all.
      expect(ran).toBeLessThanOrEqual(24);
    });

    it('answers an unknown token with UNAUTHORIZED reason invalid', async () => {
      for (const token of ['not-a-token', '']) {
        await expect(client.validateSession({ token })).rejects.toMatchObject({ code: 'UNAUTHORIZED', args: { reason: 'invalid' } });
      }
    });

    it('slides expiry, writing activity back only when older than 15 s', async () => {
      const s = await login('alice', 'alice-secret');
      await ageSession(s.id, 5_000);
      const recent = (await sessionRow(s.id)).last_activity_at as Date;
      await client.validateSession({ token: s.token });
      expect((await sessionRow(s.id)).last_activity_at).toEqual(recent);
      await ageSession(s.id, 20 * 60_000);
      const p = await client.validateSession({ token: s.token });
      const written = (await sessionRow(s.id)).last_activity_at as Date;
      expect(Date.now() - written.getTime()).toBeLessThan(5_000);
      expect(p.apiSession!.expirationSeconds).toBeGreaterThan(1790);
    });

    it('deletes an expired session, answers UNAUTHORIZED reason expired and publishes its end', async () => {
      const s = await login('alice', 'alice-secret');
      await ageSession(s.id, 31 * 60_000);
      await expect(client.validateSession({ token: s.token })).rejects.toMatchObject({ code: 'UNAUTHORIZED', args: { reason: 'expired' } });
      expect(await sessionRow(s.id)).toBeUndefined();
      await vi.waitFor(() => expect(deleted).toContainEqual({ id: s.id, identityId: s.identityId }));
      await expect(client.validateSession({ token: s.token })).rejects.toMatchObject({ args: { reason: 'invalid' } });
    });

    it('ends the session of an identity the read model knows to be deleted', async () => {
      const dave = await addUser('dave', 'dave-secret');
      const s = await login('dave', 'dave-secret');
      h.identity.identities.delete(dave.id!);
      await h.db.updateTable('identities').set({ deleted: true }).where('id', '=', dave.id!).execute();
      await expect(client.validateSession({ token: s.token })).rejects.toMatchObject({ code: 'UNAUTHORIZED', args: { reason: 'invalid' } });
      expect(await sessionRow(s.id)).toBeUndefined();
    });
  });

  describe('expiry sweep', () => {
    it('ends at start-up an expired session nobody presented again, and publishes its end', async () => {
      const s = await login('alice', 'alice-secret');
      const fresh = await login('alice', 'alice-secret');
      await ageSession(s.id, 40 * 60_000);
      await h.startAuth(); // a replica starting sweeps what expired meanwhile
      expect(await sessionRow(s.id)).toBeUndefined();
      expect(await sessionRow(fresh.id)).toBeDefined();
      await vi.waitFor(() => expect(deleted).toContainEqual({ id: s.id, identityId: s.identityId }));
    });
  });

  describe('GetApiSession and DeleteApiSession', () => {
    it('reads a session by id without its token', async () => {
      const s = await login('alice', 'alice-secret');
      const got = await client.getApiSession({ id: s.id });
      expect(got).toMatchObject({ id: s.id, token: '', identityId: s.identityId, identityName: 'alice' });
    });

    it('deletes a session, publishes edge.auth.api-session.deleted, then answers NOT_FOUND', async () => {
      const s = await login('alice', 'alice-secret');
      await client.deleteApiSession({ id: s.id });
      await vi.waitFor(() => expect(deleted).toContainEqual({ id: s.id, identityId: s.identityId }));
      await expect(client.deleteApiSession({ id: s.id })).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
      await expect(client.getApiSession({ id: s.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(client.validateSession({ token: s.token })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    });
  });

  describe('GetIdentityAuthSummaries', () => {
    it('names each identity\'s updb authenticator and whether it has an API session', async () => {
      const erin = await addUser('erin', 'erin-secret');
      const frank = await addUser('frank', 'frank-secret');
      await login('erin', 'erin-secret');
      const { summaries } = await client.getIdentityAuthSummaries({ identityIds: [erin.id!, frank.id!, 'unknown'] });
      expect(summaries.map((s) => [s.identityId, s.updbUsername, s.hasApiSession, s.isMfaEnabled])).toEqual([
        [erin.id, 'erin', true, false],
        [frank.id, 'frank', false, false],
        ['unknown', undefined, false, false],
      ]);
      expect(summaries[0]!.updbId).toMatch(/^[A-Za-z0-9]{10}$/);
      expect(summaries[0]!.certId).toBeUndefined();
    });
  });

  describe('edge.identity.identity.deleted', () => {
    it('ends the identity\'s API sessions and removes its authenticators; a second delivery is harmless', async () => {
      const carol = await addUser('carol', 'carol-secret');
      const sessions = [await login('carol', 'carol-secret'), await login('carol', 'carol-secret')];
      await h.bus.publish('edge.identity.identity.deleted', { id: carol.id });
      await vi.waitFor(async () => {
        expect(await h.db.selectFrom('api_sessions').select('id').where('identity_id', '=', carol.id!).execute()).toEqual([]);
        expect(await h.db.selectFrom('authenticators').select('id').where('identity_id', '=', carol.id!).execute()).toEqual([]);
      }, { timeout: 5_000 });
      for (const s of sessions) await vi.waitFor(() => expect(deleted).toContainEqual({ id: s.id, identityId: carol.id }));

      const eventsBefore = deleted.length;
      await h.bus.publish('edge.identity.identity.deleted', { id: carol.id });
      await new Promise((r) => setTimeout(r, 500));
      expect(deleted.length).toBe(eventsBefore);
      await expect(login('carol', 'carol-secret')).rejects.toMatchObject({ code: 'INVALID_AUTH' });
      expect(await client.getIdentityAuthSummaries({ identityIds: ['x'] })).toBeDefined(); // still serving
    });
  });
});
