/**
 * CreateSessions: many session creations in one call, as a gateway sends the requests arriving
 * together. Each item is created for the caller its own principal names, and answers what a
 * CreateSession of it alone would have answered, session or error; the items share their calls
 * to the policy service.
 */
import { randomUUID } from 'node:crypto';
import type { session as pb } from '@edge/proto';
import { decodeZitiError, encodePrincipal, runWithContext, type CallerPrincipal } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, grantSessionServices, type Harness } from './harness.js';

/** One item: who asks, and what differs from a Dial of `svc` for the caller's own API session. */
interface Ask {
  who: CallerPrincipal | undefined;
  over?: Partial<pb.CreateSessionRequest>;
}

/** What an error says to its caller. */
const visible = (e: unknown) => {
  const z = e as { code: string; status: number; message: string; fieldCause?: unknown; causeMessage?: string };
  return { code: z.code, status: z.status, message: z.message, cause: z.fieldCause, causeMessage: z.causeMessage };
};

describe('CreateSessions', () => {
  let h: Harness;
  const principal = (identityId: string, apiSessionId: string, roleAttributes = ['dialers']): CallerPrincipal => ({
    identityId, name: identityId, isAdmin: false, apiSessionId, roleAttributes, permissions: [], configTypes: [],
    mfa: { required: false, complete: false },
  });
  const request = ({ who, over }: Ask): pb.CreateSessionRequest => ({
    apiSessionId: who?.apiSessionId ?? '', identityId: who?.identityId ?? '', serviceId: 'svc', type: 'Dial', tagsJson: '{}', ...over,
  });

  /** One CreateSessions call made for nobody in particular; each result as a session or the error it decodes to. */
  async function batch(asks: Ask[]): Promise<Array<{ session?: pb.Session__Output; error?: ReturnType<typeof visible> }>> {
    const { results } = await runWithContext({ requestId: randomUUID() }, () => h.client.createSessions({
      items: asks.map((a) => ({ request: request(a), principal: a.who ? encodePrincipal(a.who) : Buffer.alloc(0), requestId: randomUUID() })),
    }));
    return results.map((r) => (r.result === 'session' ? { session: r.session! } : { error: visible(decodeZitiError(r.error!)) }));
  }

  /** The same request alone, through CreateSession with the principal in the call metadata. */
  async function alone(ask: Ask): Promise<{ session?: pb.Session__Output; error?: ReturnType<typeof visible> }> {
    try {
      return { session: await runWithContext({ requestId: randomUUID(), principal: ask.who }, () => h.client.createSession(request(ask))) };
    } catch (err) {
      return { error: visible(err) };
    }
  }

  const rowsOf = (apiSessionId: string) => h.db.selectFrom('sessions').selectAll().where('api_session_id', '=', apiSessionId).execute();

  beforeAll(async () => {
    h = await createHarness();
    // The identity service knows nobody: only each item's principal says who its caller is.
    grantSessionServices(h.world);
    h.world.policies.push({ id: 'hosts', type: 'Bind', semantic: 'AllOf', identityRoles: ['#hosts'], serviceRoles: ['#s'] });
  });
  afterAll(async () => h?.close());

  it('answers each item in its order, sharing the calls to the policy service', async () => {
    const asks: Ask[] = Array.from({ length: 8 }, (_, i) => ({
      who: principal(`ann-${i}`, `api-order-${i}`), over: i % 2 ? { serviceId: 'svc-bind', type: 'Bind' } : { tagsJson: `{"n":${i}}` },
    }));
    const before = h.world.calls.filter((c) => c.method === 'GetServiceAccesses').length;
    const results = await batch(asks);
    expect(results.map((r) => r.error)).toEqual(asks.map(() => undefined));
    expect(results.map((r) => [r.session!.apiSessionId, r.session!.identityId, r.session!.serviceId, r.session!.type]))
      .toEqual(asks.map((a) => [a.who!.apiSessionId, a.who!.identityId, a.over?.serviceId ?? 'svc', a.over?.type ?? 'Dial']));
    expect(results.filter((_, i) => i % 2 === 0).map((r) => r.session!.tagsJson)).toEqual(['{"n":0}', '{"n":2}', '{"n":4}', '{"n":6}']);
    // Two go at once, the six asked meanwhile together as soon as one is answered.
    expect(h.world.calls.filter((c) => c.method === 'GetServiceAccesses').length - before).toBeLessThanOrEqual(3);
    expect(h.world.calls.some((c) => c.method === 'GetServiceAccess')).toBe(false);
    for (const [i, r] of results.entries()) expect(await rowsOf(`api-order-${i}`)).toMatchObject([{ id: r.session!.id, token: r.session!.token }]);
  });

  it('refuses each item as CreateSession alone refuses it, leaving the other items of the batch alone', async () => {
    const eve = principal('eve', 'api-refusals');
    expect((await runWithContext({ requestId: randomUUID(), principal: eve }, () => h.client.submitPostureResponses({
      apiSessionId: eve.apiSessionId, identityId: eve.identityId, responsesJson: [JSON.stringify({ id: 'linux', typeId: 'OS', type: 'Windows', version: '10.0.19041' })], bulk: false,
    }))).servicesJson).toBeDefined();
    const refused: Ask[] = [
      { who: eve, over: { serviceId: 'svc-unknown' } },
      { who: eve, over: { serviceId: 'svc-hidden' } },
      { who: eve, over: { serviceId: 'svc-bind', type: 'Dial' } },
      { who: eve, over: { serviceId: 'svc-os' } },
      { who: eve, over: { serviceId: 'svc-no-routers' } },
      { who: eve, over: { type: 'Connect' } },
      { who: eve, over: { serviceId: '' } },
      { who: principal('nobody-knows', 'api-x'), over: { identityId: 'another' } },
    ];
    const expected = await Promise.all(refused.map(alone));
    expect(expected.map((e) => e.error?.code)).toEqual([
      'NOT_FOUND', 'NOT_FOUND', 'COULD_NOT_VALIDATE', 'INVALID_POSTURE', 'NO_EDGE_ROUTERS_AVAILABLE', 'COULD_NOT_VALIDATE', 'COULD_NOT_VALIDATE', 'NOT_FOUND',
    ]);
    const granted: Ask = { who: principal('fay', 'api-granted') };
    const results = await batch([granted, ...refused, granted]);
    expect(results.slice(1, -1)).toEqual(expected);
    expect(results[0]!.session).toMatchObject({ identityId: 'fay', apiSessionId: 'api-granted' });
    expect(results.at(-1)!.session!.id).toBe(results[0]!.session!.id);
    expect(await rowsOf('api-refusals')).toEqual([]);
  });

  it('creates each item for its own principal, never for another item\'s', async () => {
    const ann = principal('ann', 'api-ann');
    const hal = principal('hal', 'api-hal', ['hosts']);
    const results = await batch([
      { who: ann },
      { who: hal, over: { type: 'Bind' } },
      // A principal naming another identity than the request is not used, and no other item's is either.
      { who: principal('mallory', 'api-mallory'), over: { identityId: 'hal', apiSessionId: 'api-hal' } },
      { who: undefined, over: { identityId: 'ann', apiSessionId: 'api-ann', type: 'Bind' } },
    ]);
    expect(results[0]!.session).toMatchObject({ identityId: 'ann', apiSessionId: 'api-ann', type: 'Dial', servicePolicyIds: ['dial'] });
    expect(results[1]!.session).toMatchObject({ identityId: 'hal', apiSessionId: 'api-hal', type: 'Bind', servicePolicyIds: ['hosts'] });
    expect(results.slice(2).map((r) => r.error?.code)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect((await rowsOf('api-ann')).map((r) => [r.identity_id, r.type])).toEqual([['ann', 'Dial']]);
    expect((await rowsOf('api-hal')).map((r) => [r.identity_id, r.type])).toEqual([['hal', 'Bind']]);
  });

  it('creates one session for the same API session, service and type asked twice in a batch', async () => {
    const joe = principal('joe', 'api-twice');
    const results = await batch([{ who: joe }, { who: joe }, { who: joe, over: { serviceId: 'svc-bind', type: 'Bind' } }, { who: joe }]);
    expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);
    const [a, b, , d] = results.map((r) => r.session!);
    expect(new Set([a!.id, b!.id, d!.id]).size).toBe(1);
    expect([b!.token, d!.token]).toEqual([a!.token, a!.token]);
    expect((await rowsOf('api-twice')).map((r) => r.type).sort()).toEqual(['Bind', 'Dial']);
  });
});
