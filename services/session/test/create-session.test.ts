/**
 * CreateSession through the session service's gRPC interface, as the gateway calls it for
 * `POST /sessions`: the caller is the principal in the call metadata, and the grant, its posture
 * checks and the usable edge routers are one call to the policy service. The rules are OpenZiti's
 * (controller/model/session_manager.go): a service not granted is not found, a grant of the other
 * type is a field error on serviceId, a failing posture check refuses the request and records it,
 * and no shared edge router refuses it too.
 */
import { randomUUID } from 'node:crypto';
import { SETTLE_MS } from '@edge/bus';
import type { session as pb } from '@edge/proto';
import { runWithContext, type CallerPrincipal } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SERVICES_HELD_PER_IDENTITY } from '../src/peers/policy.js';
import { createSessionRecords } from '../src/store/session.js';
import { createHarness, grantSessionServices, type Harness, type StandInCall } from './harness.js';

/** What one request answered, and the calls the stand-ins saw for it. */
interface Outcome {
  session?: pb.Session__Output;
  error?: { code: string; fieldCause?: Record<string, unknown> };
  calls: StandInCall[];
}

describe('CreateSession', () => {
  let h: Harness;
  const principal = (identityId: string, apiSessionId: string): CallerPrincipal => ({
    identityId, name: identityId, isAdmin: false, apiSessionId, roleAttributes: ['dialers'], permissions: [], configTypes: [],
    mfa: { required: false, complete: false },
  });

  /** Runs `fn` as one request of `who`, with its own request id. */
  async function asCaller<T>(who: CallerPrincipal, fn: () => Promise<T>): Promise<{ value?: T; error?: Outcome['error']; calls: StandInCall[] }> {
    const requestId = randomUUID();
    const calls = () => h.world.calls.filter((c) => c.requestId === requestId);
    try {
      return { value: await runWithContext({ requestId, principal: who }, fn), calls: calls() };
    } catch (error) {
      return { error: error as Outcome['error'], calls: calls() };
    }
  }

  /** Asks for a session as `who`, for its own API session and identity unless `over` says otherwise. */
  async function create(who: CallerPrincipal, over: Partial<pb.CreateSessionRequest> = {}): Promise<Outcome> {
    const { value, ...rest } = await asCaller(who, () => h.client.createSession({
      apiSessionId: who.apiSessionId, identityId: who.identityId, serviceId: 'svc', type: 'Dial', tagsJson: '{}', ...over,
    }));
    return { session: value, ...rest };
  }

  const rowsOf = (apiSessionId: string) => h.db.selectFrom('sessions').selectAll().where('api_session_id', '=', apiSessionId).execute();
  const count = async (table: string) => Number((await h.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const failuresOf = async (identityId: string) =>
    (await h.client.listFailedServiceRequests({ identityId })).failedServiceRequestsJson.map((j) => JSON.parse(j) as Record<string, unknown>);
  const servicesAsked = (calls: StandInCall[]) => calls.map((c) => `${c.service}.${c.method}`);

  beforeAll(async () => {
    h = await createHarness();
    // The identity service knows nobody: only the principal says who the caller is.
    grantSessionServices(h.world);
  });
  afterAll(async () => h?.close());

  it('creates a Dial session with the edge routers of the grant, for the caller the principal names', async () => {
    const ann = principal('ann', 'api-ann');
    const { session, error, calls } = await create(ann, { tagsJson: '{"team":"blue"}' });
    expect(error).toBeUndefined();
    expect(session).toMatchObject({
      apiSessionId: 'api-ann', identityId: 'ann', serviceId: 'svc', serviceName: 'svc', type: 'Dial', servicePolicyIds: ['dial'], tagsJson: '{"team":"blue"}',
    });
    expect(session!.token).not.toBe('');
    expect(session!.edgeRouters.map((r) => r.id)).toEqual(['er-1', 'er-2']);
    // One call to the policy service, none to the auth or identity service. The call is the
    // batched one, also for a creation arriving alone (creations arriving together share it).
    expect(servicesAsked(calls)).toEqual(['policy.GetServiceAccesses']);
    const rows = await rowsOf('api-ann');
    expect(rows).toMatchObject([{ id: session!.id, token: session!.token, identity_id: 'ann', service_id: 'svc', type: 'Dial', service_policy_ids: ['dial'], tags: { team: 'blue' } }]);
  });

  it('returns the existing session for the same API session, service and type, and a new one for another API session', async () => {
    const bob = principal('bob', 'api-bob');
    const first = await create(bob);
    const again = await create(bob);
    expect(again.error).toBeUndefined();
    expect(again.session).toMatchObject({ id: first.session!.id, token: first.session!.token });
    expect(again.session!.edgeRouters.map((r) => r.id)).toEqual(['er-1', 'er-2']);
    expect(await rowsOf('api-bob')).toHaveLength(1);

    const other = await create(principal('bob', 'api-bob-2'));
    expect(other.session!.id).not.toBe(first.session!.id);
    expect(await rowsOf('api-bob-2')).toHaveLength(1);
  });

  it('answers a service no policy grants as not found, and a grant of the other type as a field error on serviceId', async () => {
    const cid = principal('cid', 'api-cid');
    const hidden = await create(cid, { serviceId: 'svc-hidden' });
    expect(hidden.error).toMatchObject({ code: 'NOT_FOUND' });
    const bindOnly = await create(cid, { serviceId: 'svc-bind', type: 'Dial' });
    expect(bindOnly.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'serviceId', reason: 'service not found', value: 'svc-bind' } });
    expect([...hidden.calls, ...bindOnly.calls].filter((c) => c.service !== 'policy')).toEqual([]);
    expect(await rowsOf('api-cid')).toEqual([]);
    expect(await failuresOf('cid')).toEqual([]);
    // The grant it has is usable.
    expect((await create(cid, { serviceId: 'svc-bind', type: 'Bind' })).session).toMatchObject({ serviceId: 'svc-bind', type: 'Bind', servicePolicyIds: ['bind'] });
  });

  it('refuses a granted service no edge router serves with NO_EDGE_ROUTERS_AVAILABLE', async () => {
    const dee = principal('dee', 'api-dee');
    const { error } = await create(dee, { serviceId: 'svc-no-routers' });
    expect(error).toMatchObject({ code: 'NO_EDGE_ROUTERS_AVAILABLE' });
    expect(await rowsOf('api-dee')).toEqual([]);
  });

  it('refuses a request whose posture fails with INVALID_POSTURE, records the failure, and creates once the posture passes', async () => {
    const eve = principal('eve', 'api-eve');
    const report = (os: { type: string; version: string }) => asCaller(eve, () => h.client.submitPostureResponses({
      apiSessionId: 'api-eve', identityId: 'eve', responsesJson: [JSON.stringify({ id: 'linux', typeId: 'OS', ...os })], bulk: false,
    }));
    expect((await report({ type: 'Windows', version: '10.0.19041' })).error).toBeUndefined();

    const refused = await create(eve, { serviceId: 'svc-os' });
    expect(refused.error).toMatchObject({ code: 'INVALID_POSTURE', fieldCause: { data: { 'os-dial': [{ id: 'linux', typeId: 'OS', isPassing: false }] } } });
    // The posture data and the MFA state come from this service and the principal.
    expect(refused.calls.filter((c) => c.service !== 'policy')).toEqual([]);
    expect(await rowsOf('api-eve')).toEqual([]);
    expect(await failuresOf('eve')).toMatchObject([{
      apiSessionId: 'api-eve', serviceId: 'svc-os', serviceName: 'svc-os', sessionType: 'Dial',
      policyFailures: [{
        policyId: 'os-dial',
        checks: [{ postureCheckId: 'linux', postureCheckType: 'OS', actualValue: { type: 'Windows', version: '10.0.19041' }, expectedValue: [{ type: 'Linux', versions: ['>=5.0'] }] }],
      }],
    }]);

    expect((await report({ type: 'Linux', version: '6.1' })).error).toBeUndefined();
    const created = await create(eve, { serviceId: 'svc-os' });
    expect(created.session).toMatchObject({ serviceId: 'svc-os', servicePolicyIds: ['os-dial'] });
    expect(await rowsOf('api-eve')).toHaveLength(1);
    expect(await failuresOf('eve')).toHaveLength(1);
  });

  it('refuses a request without a serviceId or with an unknown type as a field error, asking nobody and writing nothing', async () => {
    const fay = principal('fay', 'api-fay');
    const before = { sessions: await count('sessions'), failures: await count('failed_service_requests') };
    const noService = await create(fay, { serviceId: '' });
    expect(noService.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'serviceId', reason: 'is required' } });
    const badType = await create(fay, { type: 'Connect' });
    expect(badType.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'type', value: 'Connect' } });
    const badTags = await create(fay, { tagsJson: '[1]' });
    expect(badTags.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'tags' } });
    expect([...noService.calls, ...badType.calls, ...badTags.calls]).toEqual([]);
    expect({ sessions: await count('sessions'), failures: await count('failed_service_requests') }).toEqual(before);
  });

  it('answers a service dialed again from the access it holds, until a change to policies or edge routers is heard', async () => {
    const asked = (o: Outcome) => o.calls.filter((c) => c.service === 'policy').length;
    const gus = (n: number) => principal('gus', `api-gus-${n}`);
    expect(asked(await create(gus(1)))).toBe(1);
    // Another API session of the same identity, same role attributes: no call.
    const held = await create(gus(2));
    expect(held.error).toBeUndefined();
    expect(held.session!.edgeRouters.map((r) => r.id)).toEqual(['er-1', 'er-2']);
    expect(asked(held)).toBe(0);
    // Other role attributes are another question.
    expect(asked(await create({ ...gus(3), roleAttributes: ['dialers', 'extra'] }))).toBe(1);

    // The grant goes: the stand-in answers so, and the event of the change ends the hold.
    const dial = h.world.policies.find((p) => p.id === 'dial')!;
    const identityRoles = dial.identityRoles;
    dial.identityRoles = ['#nobody'];
    try {
      // Until the change is heard, the held access still answers (the policy service holds its own evaluations on the same terms).
      expect(asked(await create(gus(4)))).toBe(0);
      await h.bus.publish('edge.policy.config-type.updated', { id: 'ct', name: 'ct' });
      await expect.poll(async () => (await create(gus(5))).error?.code, { timeout: 5000 }).toBe('NOT_FOUND');
      // Once the change has settled, a refusal asks, and is not held: the grant back (no event), the next request is created.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const refused = await create(gus(5));
      expect(refused.error?.code).toBe('NOT_FOUND');
      expect(asked(refused)).toBe(1);
    } finally {
      dial.identityRoles = identityRoles;
    }
    const again = await create(gus(6));
    expect(again.error).toBeUndefined();
    expect(asked(again)).toBe(1);

    // It was held (the change has settled); an edge router's change ends the hold too.
    expect(asked(await create(gus(7)))).toBe(0);
    h.world.edgeRouters.push('er-3');
    try {
      await h.bus.publish('edge.identity.edge-router.updated', { id: 'er-3', name: 'er-3' });
      await expect.poll(async () => (await create(gus(8))).session?.edgeRouters.map((r) => r.id), { timeout: 5000 }).toEqual(['er-1', 'er-2', 'er-3']);
    } finally {
      h.world.edgeRouters.pop();
    }
  });

  it('answers an identity dialing a second service from its every access, read in one call, and a service granted since alone', async () => {
    // Holds are granted once the changes of the test before have settled.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const ivy = (n: number) => principal('ivy', `api-ivy-${n}`);
    const policyCalls = (o: Outcome) => o.calls.filter((c) => c.service === 'policy').map((c) => c.method);
    const before = h.world.identityAccessCalls;
    // One service: asked for alone, as before.
    expect(policyCalls(await create(ivy(1)))).toEqual(['GetServiceAccesses']);
    // A second: every access of the identity, in one call.
    const bind = await create(ivy(2), { serviceId: 'svc-bind', type: 'Bind' });
    expect(bind.error).toBeUndefined();
    expect(bind.session!.edgeRouters.map((r) => r.id)).toEqual(['er-1', 'er-2']);
    expect(policyCalls(bind)).toEqual(['GetIdentityAccesses']);
    // Any other granted service is then answered without a call, refusals included.
    const none = await create(ivy(3), { serviceId: 'svc-no-routers' });
    expect(none.error?.code).toBe('NO_EDGE_ROUTERS_AVAILABLE');
    expect(policyCalls(none)).toEqual([]);
    expect(h.world.identityAccessCalls).toBe(before + 1);

    // A service granted since (no event heard) is not in what is held: asked for alone, and created.
    h.world.services.set('svc-new', { roleAttributes: ['s'] });
    try {
      const fresh = await create(ivy(4), { serviceId: 'svc-new' });
      expect(fresh.error).toBeUndefined();
      expect(policyCalls(fresh)).toEqual(['GetServiceAccesses']);
      // A service that does not exist is refused the same way.
      const missing = await create(ivy(5), { serviceId: 'svc-nowhere' });
      expect(missing.error?.code).toBe('NOT_FOUND');
      expect(policyCalls(missing)).toEqual(['GetServiceAccesses']);
    } finally {
      h.world.services.delete('svc-new');
    }
    expect(h.world.identityAccessCalls).toBe(before + 1);
  });

  it('asks for the service alone when an identity\'s every access cannot be read', async () => {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const uma = (n: number) => principal('uma', `api-uma-${n}`);
    const policyCalls = (o: Outcome) => o.calls.filter((c) => c.service === 'policy').map((c) => c.method);
    h.world.failIdentityAccesses = true;
    try {
      expect(policyCalls(await create(uma(1)))).toEqual(['GetServiceAccesses']);
      const second = await create(uma(2), { serviceId: 'svc-bind', type: 'Bind' });
      expect(second.error).toBeUndefined();
      expect(second.session!.edgeRouters.map((r) => r.id)).toEqual(['er-1', 'er-2']);
      expect(policyCalls(second)).toEqual(['GetIdentityAccesses', 'GetServiceAccesses']);
    } finally {
      h.world.failIdentityAccesses = false;
    }
  });

  it('asks one service at a time for an identity granted more services than are held for one', async () => {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const many = Array.from({ length: MAX_SERVICES_HELD_PER_IDENTITY }, (_, i) => `svc-many-${i}`);
    for (const id of many) h.world.services.set(id, { roleAttributes: ['s'] });
    try {
      const kim = (n: number) => principal('kim', `api-kim-${n}`);
      const policyCalls = (o: Outcome) => o.calls.filter((c) => c.service === 'policy').map((c) => c.method);
      expect(policyCalls(await create(kim(1), { serviceId: many[0] }))).toEqual(['GetServiceAccesses']);
      // The second service asks for every access, which is refused as too many; the third asks alone.
      const second = await create(kim(2), { serviceId: many[1] });
      expect(second.error).toBeUndefined();
      expect(policyCalls(second)).toEqual(['GetIdentityAccesses', 'GetServiceAccesses']);
      const third = await create(kim(3), { serviceId: many[2] });
      expect(third.error).toBeUndefined();
      expect(policyCalls(third)).toEqual(['GetServiceAccesses']);
    } finally {
      for (const id of many) h.world.services.delete(id);
    }
  });

  it('writes a new session in one statement, and answers a twin with the stored one in one statement too', async () => {
    const ran: string[] = [];
    const logged = h.db.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => { ran.push('statement'); return a.result; } });
    const records = createSessionRecords(logged);
    const fields = { apiSessionId: 'api-twin', identityId: 'twin', serviceId: 'svc', serviceName: 'svc', type: 'Dial' as const, servicePolicyIds: ['dial'], tags: {} };
    const first = await records.create({ id: 'twin-1', token: 'token-1', ...fields });
    expect(ran).toHaveLength(1);
    ran.length = 0;
    const twin = await records.create({ id: 'twin-2', token: 'token-2', ...fields });
    expect(twin).toMatchObject({ id: 'twin-1', token: first.token });
    expect(ran).toHaveLength(1);
    expect(await rowsOf('api-twin')).toHaveLength(1);
  });

  it('reads and writes the sessions asked for together in shared statements, twins within one statement included', async () => {
    const ran: string[] = [];
    const logged = h.db.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => { ran.push('statement'); return a.result; } });
    const records = createSessionRecords(logged);
    const fields = (n: number) => ({ apiSessionId: `api-shared-${n}`, identityId: 'shared', serviceId: 'svc', serviceName: 'svc', type: 'Dial' as const, servicePolicyIds: ['dial'], tags: { n } });
    // Asked in one turn: one insert for all eight, the twin answered with the row its other half wrote.
    const created = await Promise.all([0, 1, 2, 3, 4, 5, 6, 6].map((n, i) => records.create({ id: `shared-${i}`, token: `token-shared-${i}`, ...fields(n) })));
    expect(ran).toHaveLength(1);
    expect(created.map((c) => c.apiSessionId)).toEqual([0, 1, 2, 3, 4, 5, 6, 6].map((n) => `api-shared-${n}`));
    expect(created[7]).toEqual(created[6]);
    ran.length = 0;
    const found = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((n) => records.findExisting(`api-shared-${n}`, 'svc', 'Dial')));
    expect(ran).toHaveLength(1);
    expect(found.map((f) => f?.id)).toEqual([...created.slice(0, 7).map((c) => c.id), undefined]);
  });
});
