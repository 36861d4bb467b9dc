import type { AuthServiceClient } from '@edge/proto';
import { InsertQueryNode, sql, UpdateQueryNode, type KyselyPlugin } from 'kysely';
import { newId } from '@edge/ids';
import type { Outbox } from '@edge/outbox';
import type { IdentityRecord } from '../src/domain/identity.js';
import { createIdentityModel } from '../src/store/identity-model.js';
import type { RpcClient } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type FakeIdentity, type Harness } from './harness.js';

/** The payload the identity service publishes for an identity (services/identity events.ts). */
function eventOf(i: FakeIdentity, changes: Partial<FakeIdentity> = {}, updatedAt = new Date()) {
  const x = { ...i, ...changes };
  return {
    id: x.id, name: x.name, typeId: 'Default', isAdmin: x.isAdmin ?? false, isDefaultAdmin: x.isDefaultAdmin ?? false,
    disabled: x.disabled ?? false, disabledUntil: null, roleAttributes: x.roleAttributes ?? [], authPolicyId: x.authPolicyId || 'default',
    externalId: x.externalId ?? null, permissions: x.permissions ?? [], updatedAt: updatedAt.toISOString(),
  };
}

describe('the identity read model', () => {
  let h: Harness;
  let client: RpcClient<AuthServiceClient>;
  const principalUpdates: string[] = [];

  const login = (username: string) => client.authenticate({ method: 'password', username, password: `${username}-secret` });
  const publish = (what: 'created' | 'updated' | 'deleted' | 'disabled', data: unknown) => h.bus.publish(`edge.identity.identity.${what}`, data);
  const modelRow = (id: string) => h.db.selectFrom('identities').selectAll().where('id', '=', id).executeTakeFirst() as Promise<Record<string, any> | undefined>;

  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret' });
    await h.bus.subscribe<{ identityId: string }>('edge.auth.principal.updated', async (m) => { principalUpdates.push(m.data.identityId); });
    h.identity.add({ name: 'early', roleAttributes: ['sales'] }); // known to the identity service before auth starts
    ({ client } = await h.startAuth());
  });
  afterAll(() => h?.close());

  it('is filled at start-up from the identity service list', async () => {
    const early = [...h.identity.identities.values()].find((i) => i.name === 'early')!;
    await vi.waitFor(async () => expect(await modelRow(early.id!)).toMatchObject({ name: 'early', role_attributes: ['sales'], deleted: false }));
  });

  it('logs in and validates with the identity service unreachable once the model holds the identity', async () => {
    const user = await h.addUser('carol', 'carol-secret', { roleAttributes: ['ops'], permissions: ['admin_readonly'] });
    await login('carol'); // the model learns of carol (no event came yet)
    // A replica whose identity service is nowhere: it answers from the model alone.
    const { client: cut } = await h.startAuth({ identityTarget: '127.0.0.1:1' });
    const s = await cut.authenticate({ method: 'password', username: 'carol', password: 'carol-secret', envInfo: { os: 'linux' } });
    expect(s).toMatchObject({ identityId: user.id, identityName: 'carol' });
    const p = await cut.validateSession({ token: s.token });
    expect(p).toMatchObject({ isAdmin: false, roleAttributes: ['ops'], permissions: ['admin_readonly'], apiSession: { id: s.id, identityName: 'carol' } });
  });

  it('announces the environment a client reported with its login instead of calling the identity service', async () => {
    await h.addUser('erin', 'erin-secret');
    const seen: unknown[] = [];
    const sub = await h.bus.subscribe('edge.auth.api-session.created', async (m) => { seen.push(m.data); });
    try {
      const s = await client.authenticate({ method: 'password', username: 'erin', password: 'erin-secret', envInfo: { os: 'linux' }, sdkInfo: { type: 't' } });
      await vi.waitFor(() => expect(seen).toContainEqual({ id: s.id, identityId: s.identityId, envInfoJson: '{"os":"linux"}', sdkInfoJson: '{"type":"t"}' }));
    } finally {
      await sub.unsubscribe();
    }
  });

  it('reflects a rename, admin, new role attributes and permissions in the principal within a second of the event', async () => {
    const dan = await h.addUser('dan', 'dan-secret');
    const s = await login('dan');
    const changes = { name: 'daniel', isAdmin: true, roleAttributes: ['eng', 'oncall'], permissions: ['admin_readonly'] };
    Object.assign(dan, changes); // as the identity service holds it now
    await publish('updated', eventOf(dan));
    await vi.waitFor(async () => {
      expect(await client.validateSession({ token: s.token })).toMatchObject({
        isAdmin: true, roleAttributes: ['eng', 'oncall'], permissions: ['admin_readonly'], apiSession: { identityName: 'daniel', isAdmin: true },
      });
    }, { timeout: 1_000, interval: 50 });
    await vi.waitFor(() => expect(principalUpdates).toContain(dan.id));
  });

  it('takes the identity from its owner when a caller asks for a version newer than the model holds', async () => {
    const ida = await h.addUser('ida', 'ida-secret');
    const s = await login('ida');
    const before = await client.validateSession({ token: s.token });
    expect(before).toMatchObject({ roleAttributes: [], identityUpdatedAt: new Date(ida.updatedAt!).toISOString() });
    // Changed at the identity service; its event has not been applied here.
    const changedAt = new Date(Date.parse(ida.updatedAt!) + 5_000).toISOString();
    Object.assign(ida, { roleAttributes: ['moved'], updatedAt: changedAt });
    expect(await client.validateSession({ token: s.token })).toMatchObject({ roleAttributes: [] });
    expect(await client.validateSession({ token: s.token, minIdentityUpdatedAt: changedAt })).toMatchObject({ roleAttributes: ['moved'], identityUpdatedAt: changedAt });
    expect(await modelRow(ida.id!)).toMatchObject({ role_attributes: ['moved'] });
    expect(await client.validateSession({ token: s.token })).toMatchObject({ roleAttributes: ['moved'] });
  });

  it('announces a change only for an identity that has an API session (no principal of the others is held)', async () => {
    const quiet = await h.addUser('no-session', 'no-session-secret');
    const active = await h.addUser('has-session', 'has-session-secret');
    await login('has-session');
    const at = new Date(Date.now() + 2_000);
    await publish('updated', eventOf(quiet, { name: 'no-session-renamed' }, at));
    await publish('updated', eventOf(active, { name: 'has-session-renamed' }, at));
    await vi.waitFor(async () => expect((await modelRow(quiet.id!))?.name).toBe('no-session-renamed'));
    await vi.waitFor(() => expect(principalUpdates).toContain(active.id));
    expect(principalUpdates).not.toContain(quiet.id);
  });

  it('keeps the newer row when an older event arrives late, and a repeat announces nothing', async () => {
    const fay = await h.addUser('fay', 'fay-secret');
    const marker = await h.addUser('marker', 'marker-secret');
    const s = await login('fay');
    const now = Date.now();
    await publish('updated', eventOf(fay, { name: 'fay-new' }, new Date(now + 1_000)));
    await vi.waitFor(async () => expect((await client.validateSession({ token: s.token })).apiSession?.identityName).toBe('fay-new'));
    const announced = principalUpdates.filter((id) => id === fay.id).length;
    await publish('updated', eventOf(fay, { name: 'fay-old', roleAttributes: ['stale'] }, new Date(now)));
    await publish('updated', eventOf(fay, { name: 'fay-new' }, new Date(now + 1_000)));
    // One consumer handles the subject in order: once the marker is in, the events before it are too.
    await publish('updated', eventOf(marker, { name: 'marker-2' }, new Date(now + 5_000)));
    await vi.waitFor(async () => expect((await modelRow(marker.id!))?.name).toBe('marker-2'));
    expect(await modelRow(fay.id!)).toMatchObject({ name: 'fay-new', role_attributes: [] });
    expect((await client.validateSession({ token: s.token })).apiSession?.identityName).toBe('fay-new');
    expect(principalUpdates.filter((id) => id === fay.id)).toHaveLength(announced);
  });

  it('refuses login and validation of a disabled identity from its event, without asking the identity service', async () => {
    const gil = await h.addUser('gil', 'gil-secret');
    const s = await login('gil');
    // The identity service would still say enabled: only the event tells.
    await publish('disabled', eventOf(gil, { disabled: true }));
    await vi.waitFor(async () => expect(client.validateSession({ token: s.token })).rejects.toMatchObject({ code: 'UNAUTHORIZED' }), { timeout: 1_000, interval: 50 });
    await expect(login('gil')).rejects.toMatchObject({ code: 'INVALID_AUTH' });
  });

  it('keeps a deleted identity deleted: an older event of its life does not bring it back', async () => {
    const hal = await h.addUser('hal', 'hal-secret');
    await login('hal');
    const before = new Date(Date.now() - 1_000);
    await publish('deleted', eventOf(hal));
    await vi.waitFor(async () => expect(await modelRow(hal.id!)).toMatchObject({ deleted: true }));
    await publish('updated', eventOf(hal, { name: 'hal-again' }, before));
    const marker = [...h.identity.identities.values()].find((i) => i.name === 'marker' || i.name === 'marker-2')!;
    await publish('updated', eventOf(marker, { name: 'marker-3' }, new Date(Date.now() + 10_000)));
    await vi.waitFor(async () => expect((await modelRow(marker.id!))?.name).toBe('marker-3'));
    expect(await modelRow(hal.id!)).toMatchObject({ deleted: true, name: 'hal' });
    // Known deleted: the identity service is not asked about it again.
    await expect(login('hal')).rejects.toMatchObject({ code: 'INVALID_AUTH' });
  });

  it('pages as the identity service does when the database orders text by locale: no identity of another page goes as deleted', async () => {
    const icu = await sql<{ n: number }>`select count(*)::int as n from pg_collation where collname = 'en-US-x-icu'`.execute(h.db);
    if (icu.rows[0]!.n === 0) return; // a Postgres built without ICU: nothing to compare with
    // As on a database created with an en_US collation ('a' before 'B'; by code point 'B' first).
    const table = (await h.db.selectFrom('identities').select(sql<string>`tableoid::regclass::text`.as('t')).limit(1).executeTakeFirstOrThrow()).t;
    await sql.raw(`alter table ${table} alter column id type text collate "en-US-x-icu"`).execute(h.db);
    try {
      const names = Array.from({ length: 700 }, (_, i) => `paged-${i}`);
      // Ids whose locale order differs from their code point order, over more than one page.
      for (const [i, name] of names.entries()) h.identity.add({ id: `${i % 2 ? 'a' : 'B'}${String(i).padStart(4, '0')}`, name });
      await h.db.deleteFrom('reconciliations').where('name', '=', 'identity-model').execute();
      await h.startAuth();
      await vi.waitFor(async () => {
        const n = await h.db.selectFrom('identities').select((eb) => eb.fn.countAll<number>().as('n')).where('name', 'like', 'paged-%').executeTakeFirstOrThrow();
        expect(Number(n.n)).toBe(700);
      }, { timeout: 10_000 });
      // Every row quiet long enough to be marked deleted if a page leaves it out.
      await h.db.updateTable('identities').set({ seen_at: new Date(Date.now() - 60_000) }).where('name', 'like', 'paged-%').execute();
      // Renamed at the owner only: the pass reaches it on its last page (last by code point).
      const last = [...h.identity.identities.values()].find((i) => i.name === 'paged-699')!;
      const lastId = 'zzzz-paged-last';
      h.identity.identities.delete(last.id!);
      h.identity.add({ id: lastId, name: 'paged-last-renamed', updatedAt: new Date(Date.now() + 1_000).toISOString() });
      await h.db.deleteFrom('reconciliations').where('name', '=', 'identity-model').execute();
      await h.startAuth();
      await vi.waitFor(async () => expect(await modelRow(lastId)).toMatchObject({ name: 'paged-last-renamed' }), { timeout: 15_000 });
      // The page's sweep runs right after it was applied.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const deleted = await h.db.selectFrom('identities').select('id').where('name', 'like', 'paged-%').where('deleted', '=', true).where('id', '!=', last.id!).execute();
      expect(deleted).toEqual([]);
    } finally {
      for (const [i] of Array.from({ length: 700 }).entries()) h.identity.identities.delete(`${i % 2 ? 'a' : 'B'}${String(i).padStart(4, '0')}`);
      h.identity.identities.delete('zzzz-paged-last');
      await sql.raw(`alter table ${table} alter column id type text collate "default"`).execute(h.db);
    }
  });

  it('marks deleted on reconciliation an identity the identity service no longer lists, whose deletion event was lost', async () => {
    const ivy = await h.addUser('ivy', 'ivy-secret');
    await login('ivy');
    h.identity.identities.delete(ivy.id!);
    // Quiet long enough that the list not holding it means it is gone.
    await h.db.updateTable('identities').set({ seen_at: new Date(Date.now() - 60_000) }).where('id', '=', ivy.id!).execute();
    await h.db.deleteFrom('reconciliations').where('name', '=', 'identity-model').execute();
    await h.startAuth(); // a replica starting fills (and sweeps) the model
    await vi.waitFor(async () => expect(await modelRow(ivy.id!)).toMatchObject({ deleted: true }), { timeout: 10_000 });
  });
});

describe('the identity read model store', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.startAuth(); // its schema
  });
  afterAll(() => h?.close());

  /** The model over the harness's schema, and the tables each statement it runs writes into. */
  const model = () => {
    const writes: string[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (InsertQueryNode.is(node)) writes.push(`insert ${node.into?.table.identifier.name}`);
        if (UpdateQueryNode.is(node)) writes.push('update');
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const db = h.db.withPlugin(recorder);
    // Only its transactions are used by the model's writes (events go through enqueueEvents in them).
    const outbox = { transaction: (fn: (trx: unknown) => Promise<unknown>) => db.transaction().execute(fn) } as unknown as Outbox;
    return { store: createIdentityModel(db, outbox), writes };
  };
  const record = (over: Partial<IdentityRecord> = {}): IdentityRecord => ({
    id: newId(), name: `model-${newId()}`, typeId: 'Default', isAdmin: false, isDefaultAdmin: false, disabled: false, disabledUntil: null,
    authPolicyId: 'default', externalId: null, permissions: ['a'], roleAttributes: ['x', 'y'], updatedAt: new Date(Date.now() - 60_000), ...over,
  });

  it('writes nothing when a reconciled page changes no row, and only the rows that change otherwise', async () => {
    const { store, writes } = model();
    const page = [record(), record({ disabledUntil: new Date(), disabled: true, externalId: 'ext' }), record()];
    expect(await store.applyMany(page)).toEqual(page.map((r) => r.id));
    expect(writes).toEqual(['insert identities']);

    writes.length = 0;
    expect(await store.applyMany(page.map((r) => ({ ...r, permissions: [...r.permissions], roleAttributes: [...r.roleAttributes] })))).toEqual([]);
    expect(writes).toEqual([]);

    // Newer; equally new with other content; equally new with other role attributes order; older.
    const [a, b, c] = page as [IdentityRecord, IdentityRecord, IdentityRecord];
    const changed = [
      { ...a, name: `${a.name}-renamed`, updatedAt: new Date() },
      { ...b, disabledUntil: new Date(b.disabledUntil!.getTime() + 1000) },
      { ...c, roleAttributes: ['y', 'x'] },
    ];
    expect((await store.applyMany(changed)).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(writes).toEqual(['insert identities']);
    writes.length = 0;
    expect(await store.applyMany([{ ...a, name: 'older', updatedAt: new Date(a.updatedAt.getTime() - 1000) }])).toEqual([]);
    expect(writes).toEqual([]);
    expect((await h.db.selectFrom('identities').select('name').where('id', '=', a.id).executeTakeFirstOrThrow()).name).toBe(`${a.name}-renamed`);
  });

  it('leaves a deleted row deleted when a reconciled page still lists it, and writes nothing for it', async () => {
    const { store, writes } = model();
    const gone = record();
    await store.applyMany([gone]);
    expect(await store.markDeletedExcept({}, [], new Date(Date.now() + 1000))).toContain(gone.id);
    writes.length = 0;
    expect(await store.applyMany([{ ...gone, updatedAt: new Date(Date.now() + 60_000) }])).toEqual([]);
    expect(writes).toEqual([]);
    expect(await store.find(gone.id)).toEqual({ state: 'deleted' });
  });
});
