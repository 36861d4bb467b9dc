/**
 * The identity service through its gRPC interface: writes and their events (recorded with the
 * change, relayed after the commit) with what the auth service keeps of an identity, validation
 * that changes nothing, role matching, and the consumers that follow the policy and auth services.
 */
import type { BusMessage } from '@edge/bus';
import { Kysely, sql } from 'kysely';
import { planList } from '@edge/zitiql';
import { createIdentityStore, IDENTITY_FIELDS } from '../src/store/identity.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
const got: BusMessage<Record<string, unknown>>[] = [];
beforeAll(async () => {
  h = await createHarness();
  await h.bus.consume<Record<string, unknown>>('test', 'edge.identity.>', async (m) => { got.push(m); });
});
afterAll(async () => h?.close());

const fields = (name: string, more: Record<string, unknown> = {}) => ({
  name, typeId: 'Device', isAdmin: false, roleAttributes: [] as string[], tagsJson: '{}', appDataJson: '{}', defaultHostingCost: 0,
  defaultHostingPrecedence: 'default', serviceHostingCosts: {}, serviceHostingPrecedences: {}, authPolicyId: 'default', permissions: [] as string[], ...more,
});
const create = async (name: string, more: Record<string, unknown> = {}) => (await h.client.createIdentity({ fields: fields(name, more) })).id;
const eventsOf = (subject: string, id: string) => got.filter((m) => m.subject === subject && m.data.id === id);
const outboxRows = async () => (await h.db.selectFrom('outbox').select('id').execute()).length;
const stored = async (name: string) => (await h.db.selectFrom('identities').select('id').where('name', '=', name).execute()).length;
const query = (filter: string, more: Record<string, unknown> = {}) => ({ limit: 100, offset: 0, filter, sort: 'name', roleFilter: [] as string[], roleSemantic: '', ...more });

describe('identity writes', () => {
  it('store an identity and announce it once, with what other services need of it', async () => {
    const id = await create('w-alice', { roleAttributes: ['sales', 'emea'] });
    const got1 = await h.client.getIdentity({ id });
    // Device is a legacy type name, stored as Default as OpenZiti does.
    expect(got1).toMatchObject({ id, name: 'w-alice', typeId: 'Default', roleAttributes: ['sales', 'emea'], disabled: false });
    await vi.waitFor(() => expect(eventsOf('edge.identity.identity.created', id)).toHaveLength(1));
    expect(eventsOf('edge.identity.identity.created', id)[0]!.data).toMatchObject({ id, name: 'w-alice', isAdmin: false, roleAttributes: ['sales', 'emea'] });
    await vi.waitFor(async () => expect(await outboxRows()).toBe(0));
  });

  // The gateway asks the pki service for them right after; the event lets the pki service make
  // any the gateway did not (it stopped in between), so nothing the operator asked for is lost.
  it('record the enrollments an identity is created with in its created event, and none when none were asked for', async () => {
    const { id } = await h.client.createIdentity({
      fields: fields('w-enrolled'), enrollments: [{ method: 'ott' }, { method: 'ottca', caId: 'ca1' }, { method: 'updb', username: 'w-user' }],
    });
    const plain = await create('w-plain');
    await vi.waitFor(() => expect(eventsOf('edge.identity.identity.created', plain)).toHaveLength(1));
    await vi.waitFor(() => expect(eventsOf('edge.identity.identity.created', id)).toHaveLength(1));
    expect(eventsOf('edge.identity.identity.created', id)[0]!.data).toMatchObject({
      id, name: 'w-enrolled', enrollments: [{ method: 'ott' }, { method: 'ottca', caId: 'ca1' }, { method: 'updb', username: 'w-user' }],
    });
    expect(eventsOf('edge.identity.identity.created', plain)[0]!.data).not.toHaveProperty('enrollments');
  });

  it('refuse an enrollment method it does not know, or one asked for twice, and store nothing', async () => {
    await expect(h.client.createIdentity({ fields: fields('w-bad-enrollment'), enrollments: [{ method: 'erott' }] }))
      .rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'enrollment' } });
    await expect(h.client.createIdentity({ fields: fields('w-bad-enrollment'), enrollments: [{ method: 'ott' }, { method: 'ott' }] }))
      .rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'enrollment' } });
    expect(await stored('w-bad-enrollment')).toBe(0);
  });

  it('change only the fields of the update mask, and announce the new role attributes', async () => {
    const id = await create('w-bob', { roleAttributes: ['a'], tagsJson: '{"keep":1}' });
    await h.client.updateIdentity({ id, fields: fields('ignored-name', { roleAttributes: ['b'] }), updateMask: ['roleAttributes'] });
    const now = await h.client.getIdentity({ id });
    expect(now.name).toBe('w-bob');
    expect(now.roleAttributes).toEqual(['b']);
    expect(JSON.parse(now.tagsJson)).toEqual({ keep: 1 });
    await vi.waitFor(() => expect(eventsOf('edge.identity.identity.updated', id)).toHaveLength(1));
    expect(eventsOf('edge.identity.identity.updated', id)[0]!.data.roleAttributes).toEqual(['b']);
  });

  it('store the auth policy id it is given, asking no other service (its caller checks it names one)', async () => {
    const id = await create('w-strict', { authPolicyId: 'strict' });
    expect((await h.client.getIdentity({ id })).authPolicyId).toBe('strict');
    await vi.waitFor(() => expect(eventsOf('edge.identity.identity.created', id)).toHaveLength(1));
    // What the auth service's read model of identities needs, with the version it orders events by.
    const row = await h.db.selectFrom('identities').select('updated_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(eventsOf('edge.identity.identity.created', id)[0]!.data).toMatchObject({
      authPolicyId: 'strict', isDefaultAdmin: false, disabledUntil: null, externalId: null, permissions: [], updatedAt: row.updated_at.toISOString(),
    });
  });

  it('refuse a second identity of the same name with the field at fault', async () => {
    await create('w-twin');
    await expect(create('w-twin')).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'name' } });
    expect(await stored('w-twin')).toBe(1);
  });

  it('never delete the default admin, and delete others with an event', async () => {
    const admin = await h.client.ensureDefaultAdmin({ name: 'w-admin' });
    expect((await h.client.ensureDefaultAdmin({ name: 'another' })).id).toBe(admin.id);
    await expect(h.client.deleteIdentity({ id: admin.id })).rejects.toMatchObject({ code: 'ENTITY_CAN_NOT_BE_DELETED' });
    const id = await create('w-gone');
    await h.client.deleteIdentity({ id });
    await expect(h.client.getIdentity({ id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await vi.waitFor(() => expect(eventsOf('edge.identity.identity.deleted', id)).toHaveLength(1));
  });

  it('announce a disable durably (its API sessions must end) and lift it again', async () => {
    const id = await create('w-disabled');
    await h.client.disableIdentity({ id, durationMinutes: 0 });
    expect((await h.client.getIdentity({ id })).disabled).toBe(true);
    await vi.waitFor(() => expect(eventsOf('edge.identity.identity.disabled', id)).toHaveLength(1));
    await h.client.enableIdentity({ id });
    expect((await h.client.getIdentity({ id })).disabled).toBe(false);
  });
});

describe('the login environment', () => {
  /** The identities whose environment is announced from now on, until `stop`. */
  const announcements = async () => {
    const announced: unknown[] = [];
    const sub = await h.bus.subscribe('edge.identity.identity.environment', async (m) => { announced.push(m.data); });
    return { announced, stop: () => sub.unsubscribe() };
  };
  /** What the auth service announces of a login. */
  const login = (n: string, identityId: string, envInfoJson: string, sdkInfoJson: string) =>
    h.bus.publish('edge.auth.api-session.created', { id: `as-${n}`, identityId, envInfoJson, sdkInfoJson });
  // xmin changes with every write of the row, even one that sets the values it had.
  const version = async (id: string) => (await h.db.selectFrom('identities').select(sql<string>`xmin::text`.as('xmin')).where('id', '=', id).executeTakeFirst())?.xmin;

  it('is recorded on the identity from the auth service event, and announced for caches of the identity', async () => {
    const id = await create('env-user');
    const { announced, stop } = await announcements();
    await login('1', id, '{"os":"linux"}', '{"type":"t"}');
    await vi.waitFor(async () => {
      const i = await h.client.getIdentity({ id });
      expect(i.envInfo).toEqual({ os: 'linux', _os: 'os' });
      expect(i.sdkInfo).toEqual({ type: 't', _type: 'type' });
    });
    await vi.waitFor(() => expect(announced).toEqual([{ id }]));
    await stop();
  });

  it('is left alone, and nothing announced, when a login reported no environment', async () => {
    const id = await create('env-none');
    const marker = await create('env-marker');
    const { announced, stop } = await announcements();
    const before = await version(id);
    await login('none', id, '', '');
    // One consumer handles the subject in order: once the marker is recorded, so was the login before it.
    await login('marker', marker, '{"os":"linux"}', '');
    await vi.waitFor(() => expect(announced).toEqual([{ id: marker }]));
    expect(await version(id)).toBe(before);
    await stop();
  });

  it('is left alone, and nothing announced, when a login reports the environment recorded already; a new one is recorded', async () => {
    const id = await create('env-again');
    const marker = await create('env-again-marker');
    const { announced, stop } = await announcements();
    await login('again-1', id, '{"os":"linux","arch":"x86_64"}', '{"type":"t","version":"1"}');
    await vi.waitFor(() => expect(announced).toEqual([{ id }]));
    const before = await version(id);
    // The same values, their keys in another order; then only the environment, then only the SDK.
    await login('again-2', id, '{"arch":"x86_64","os":"linux"}', '{"version":"1","type":"t"}');
    await login('again-3', id, '{"os":"linux","arch":"x86_64"}', '');
    await login('again-4', id, '', '{"type":"t","version":"1"}');
    await login('again-5', marker, '{"os":"linux"}', '');
    await vi.waitFor(() => expect(announced).toEqual([{ id }, { id: marker }]));
    expect(await version(id)).toBe(before);
    // A client that changed reports something new: recorded and announced.
    await login('again-6', id, '{"os":"linux","arch":"x86_64"}', '{"type":"t","version":"2"}');
    await vi.waitFor(() => expect(announced).toEqual([{ id }, { id: marker }, { id }]));
    expect((await h.client.getIdentity({ id })).sdkInfo).toMatchObject({ version: '2' });
    await stop();
  });
});

describe('finding identities', () => {
  beforeAll(async () => {
    await create('f-1', { roleAttributes: ['red', 'round'] });
    await create('f-2', { roleAttributes: ['red'] });
    await create('f-3', { roleAttributes: ['round'], isAdmin: true });
  });

  it('filter and sort as OpenZiti filters do', async () => {
    const page = await h.client.listIdentities({ query: query('name contains "f-" and anyOf(roleAttributes) = "red"') });
    expect(page.identities.map((i) => i.name)).toEqual(['f-1', 'f-2']);
    expect(Number(page.meta!.totalCount)).toBe(2);
    const admins = await h.client.listIdentities({ query: query('name contains "f-" and isAdmin = true') });
    expect(admins.identities.map((i) => i.name)).toEqual(['f-3']);
  });

  it('page by id past a cursor without counting what follows when the caller reads no total (a reconciliation)', async () => {
    const ran: string[] = [];
    const logged = new Kysely<any>({ dialect: h.conn.dialect(), log: (e) => { ran.push(e.query.sql); } }).withSchema(h.schema);
    try {
      const store = createIdentityStore(logged, undefined as never); // listing announces nothing
      const ids = (await h.db.selectFrom('identities').select('id').orderBy(sql`id collate "C"`).execute()).map((r) => r.id as string);
      const params = (withoutTotal: boolean) => ({ filter: `id > ${JSON.stringify(ids[0])}`, sort: 'id asc', limit: 2, ...(withoutTotal ? { withoutTotal } : {}) });
      const counted = await store.list(planList(IDENTITY_FIELDS, params(false)));
      expect(counted.total).toBe(ids.length - 1);
      expect(ran.some((q) => /count\(\*\)/.test(q))).toBe(true);
      ran.length = 0;
      const page = await store.list(planList(IDENTITY_FIELDS, params(true)));
      expect(page.items.map((i) => i.id)).toEqual(ids.slice(1, 3));
      expect(page.total).toBe(0);
      expect(ran).toHaveLength(1);
      expect(ran[0]).not.toMatch(/count\(/);
      // Over gRPC: the same page, and a total of 0.
      const answer = await h.client.listIdentities({ query: { ...query(params(true).filter, { sort: 'id asc', limit: 2 }), withoutTotal: true } });
      expect(answer.identities.map((i) => i.id)).toEqual(ids.slice(1, 3));
      expect(Number(answer.meta?.totalCount)).toBe(0);
    } finally {
      await logged.destroy();
    }
  });

  it('refuse a filter on an unknown field with the field named', async () => {
    await expect(h.client.listIdentities({ query: query('nosuchfield = 1') })).rejects.toMatchObject({ code: 'INVALID_FILTER' });
  });

  it('match role lists under both semantics and by id', async () => {
    const byName = new Map((await h.client.listIdentities({ query: query('name contains "f-"') })).identities.map((i) => [i.name, i.id]));
    const names = async (roles: string[], semantic: string) => {
      const { ids } = await h.client.matchIdentities({ roles, semantic });
      return [...byName].filter(([, id]) => ids.includes(id)).map(([n]) => n).sort();
    };
    expect(await names(['#red', '#round'], 'AllOf')).toEqual(['f-1']);
    expect(await names(['#red', '#round'], 'AnyOf')).toEqual(['f-1', 'f-2', 'f-3']);
    expect(await names([`@${byName.get('f-3')}`], 'AnyOf')).toEqual(['f-3']);
  });
});

describe('service configs of an identity', () => {
  it('are announced when assigned or removed, and not when a removal found nothing', async () => {
    const id = await create('c-announced');
    const changes = () => got.filter((m) => m.subject === 'edge.identity.service-configs.changed' && m.data.identityId === id);
    await h.client.assignServiceConfigs({ identityId: id, configs: [{ serviceId: 'svc-a', configId: 'cfg-a', configTypeId: 'type-a' }] });
    await vi.waitFor(() => expect(changes()).toHaveLength(1));
    await h.client.removeServiceConfigs({ identityId: id, configs: [{ serviceId: 'svc-other', configId: 'cfg-a' }] });
    await h.client.removeServiceConfigs({ identityId: id, configs: [] });
    await vi.waitFor(() => expect(changes()).toHaveLength(2));
    const { configs } = await h.client.listServiceConfigs({ identityId: id, configs: [] });
    expect(configs).toEqual([]);
    // Refused for an unknown identity, with nothing announced (the next announcement comes after where it would be).
    await expect(h.client.assignServiceConfigs({ identityId: 'no-such', configs: [{ serviceId: 's', configId: 'c', configTypeId: 't' }] })).rejects.toThrow(/NOT_FOUND|not found/i);
    await h.client.assignServiceConfigs({ identityId: id, configs: [{ serviceId: 'svc-b', configId: 'cfg-b', configTypeId: 'type-a' }] });
    await vi.waitFor(() => expect(changes()).toHaveLength(3));
    expect(got.filter((m) => m.data.identityId === 'no-such')).toEqual([]);
  });

  it('are dropped when the policy service announces their service deleted', async () => {
    const id = await create('c-holder');
    await h.client.assignServiceConfigs({ identityId: id, configs: [
      { serviceId: 'svc-kept', configId: 'cfg-1', configTypeId: 'type-1' },
      { serviceId: 'svc-gone', configId: 'cfg-2', configTypeId: 'type-1' },
    ] });
    await h.bus.publish('edge.policy.service.deleted', { id: 'svc-gone' });
    await vi.waitFor(async () => {
      const { configs } = await h.client.listServiceConfigs({ identityId: id, configs: [] });
      expect(configs.map((c) => c.serviceId)).toEqual(['svc-kept']);
    });
  });
});
