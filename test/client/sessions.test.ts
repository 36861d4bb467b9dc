/**
 * Dial/Bind sessions end to end: who gets one (service policies, posture checks, edge router
 * policies), what it carries, and how sessions end (logout, also while the session service is
 * down; policy removal; identity and service changes).
 */
import { describe, expect, it } from 'vitest';
import { useController, type ControllerFixture } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';
import { createPasswordIdentity } from '../support/password-identity.js';
import { eventually } from '../support/eventually.js';
import { grpcCallsOf } from '../support/metrics.js';

const C = '/edge/client/v1';
let f: ControllerFixture;
useController((fx) => { f = fx; });
const api = adminApi(() => f.c, () => f.admin);
const id = async (path: string, body: unknown) => (await api.post(path, body)).body.data.id as string;

const gone = (sessionId: string) => async () => (await f.c.http.get(`/edge/management/v1/sessions/${sessionId}`, { session: f.admin })).status === 404;

const createSession = (token: string, body: unknown, expectStatus = 201, skipValidation = false) =>
  f.c.http.post(`${C}/sessions`, { body, session: token, expectStatus, skipValidation });

/** An identity in role #<tag>, a service in role #<tag>, a router reached through both policy kinds. */
async function network(tag: string) {
  const user = await createPasswordIdentity(f.c, f.admin, `${tag}-user`, `${tag}-password-1`);
  await api.patch(`/identities/${user.id}`, { roleAttributes: [tag] });
  const service = await id('/services', { name: `${tag}-svc`, encryptionRequired: true, roleAttributes: [tag] });
  await id('/edge-routers', { name: `${tag}-er`, roleAttributes: [tag] });
  await id('/edge-routers', { name: `${tag}-er-other`, roleAttributes: [`${tag}-other`] });
  await id('/edge-router-policies', { name: `${tag}-erp`, semantic: 'AnyOf', identityRoles: [`#${tag}`], edgeRouterRoles: [`#${tag}`, `#${tag}-other`] });
  await id('/service-edge-router-policies', { name: `${tag}-serp`, semantic: 'AllOf', serviceRoles: [`#${tag}`], edgeRouterRoles: [`#${tag}`] });
  const dial = await id('/service-policies', { name: `${tag}-dial`, type: 'Dial', semantic: 'AllOf', identityRoles: [`#${tag}`], serviceRoles: [`#${tag}`] });
  return { user, service, dial };
}

describe('sessions', () => {
  it('grants a Dial session with the edge routers both policy kinds share, and returns it again when asked again', async () => {
    const { user, service } = await network('grant');
    const r = await createSession(user.token, { serviceId: service, type: 'Dial' });
    const s = r.body.data;
    expect(s).toMatchObject({ serviceId: service, type: 'Dial', identityId: user.id, service: { id: service, name: 'grant-svc' } });
    expect(s.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.edgeRouters.map((e: { name: string }) => e.name)).toEqual(['grant-er']);
    const again = await createSession(user.token, { serviceId: service, type: 'Dial' });
    expect(again.body.data.id).toBe(s.id);
    expect(again.body.data.token).toBe(s.token);
    const own = await f.c.http.get(`${C}/sessions`, { session: user.token, expectStatus: 200 });
    expect(own.body.data.map((x: { id: string }) => x.id)).toEqual([s.id]);
    await f.c.http.get(`${C}/sessions/${s.id}`, { session: user.token, expectStatus: 200 });
    const mgmt = await api.get(`/sessions?filter=${encodeURIComponent(`service = "${service}"`)}`);
    expect(mgmt.body.data.map((x: { id: string }) => x.id)).toEqual([s.id]);
    expect((await api.get(`/sessions/${s.id}/route-path`)).body.data).toEqual({ routePath: [] });
  });

  // A router's protocols come from the router itself (no API writes them): set where the identity
  // service keeps routers and in the policy service's read model of them, which sessions are matched in.
  it('carries the supported protocols of a session\'s edge routers, as protocols and as URLs', async () => {
    const { user, service } = await network('protocols');
    const first = (await createSession(user.token, { serviceId: service, type: 'Dial' })).body.data;
    expect(first.edgeRouters).toMatchObject([{ name: 'protocols-er', supportedProtocols: {}, urls: {} }]);
    // An entry that is no string (the API answers strings only) is left out.
    const stored = JSON.stringify({ tls: 'tls:protocols-er:3022', ws: 'ws:protocols-er:3023', port: 3022 });
    await f.c.query(`UPDATE ${f.c.schema('identity')}.routers SET supported_protocols = $1 WHERE name = 'protocols-er'`, [stored]);
    await f.c.query(`UPDATE ${f.c.schema('policy')}.edge_routers SET supported_protocols = $1 WHERE name = 'protocols-er'`, [stored]);
    const protocols = { tls: 'tls:protocols-er:3022', ws: 'ws:protocols-er:3023' };
    const again = (await createSession(user.token, { serviceId: service, type: 'Dial' })).body.data;
    expect(again.id).toBe(first.id);
    expect(again.edgeRouters).toEqual([expect.objectContaining({ name: 'protocols-er', supportedProtocols: protocols, urls: protocols })]);
    expect((await f.c.http.get(`${C}/sessions/${first.id}`, { session: user.token, expectStatus: 200 })).body.data.edgeRouters[0].urls).toEqual(protocols);
    const router = (await api.get(`/edge-routers?filter=${encodeURIComponent('name = "protocols-er"')}`)).body.data[0];
    expect(router.supportedProtocols).toEqual(protocols);
    expect((await api.get(`/edge-routers/${router.id}`)).body.data.supportedProtocols).toEqual(protocols);
  });

  // As MapSessionToRestModel in controller/internal/routes/session_api_model.go.
  it('names the service policies that granted a session on the management API', async () => {
    const { user, service, dial } = await network('named');
    const s = (await createSession(user.token, { serviceId: service, type: 'Dial' })).body.data;
    const ref = { id: dial, entity: 'service-policies', name: 'named-dial', _links: { self: { href: `./service-policies/${dial}` } } };
    expect((await api.get(`/sessions/${s.id}`)).body.data.servicePolicies).toEqual([ref]);
    const listed = (await api.get(`/sessions?filter=${encodeURIComponent(`id = "${s.id}"`)}`)).body.data;
    expect(listed[0].servicePolicies).toEqual([ref]);
  });

  it('refuses Bind without a Bind policy, an ungranted service, and bad input, naming the field', async () => {
    const { user, service } = await network('bind');
    const bind = await createSession(user.token, { serviceId: service, type: 'Bind' }, 400);
    expect(bind.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'serviceId' } });
    const other = await id('/services', { name: 'bind-unrelated', encryptionRequired: true });
    await createSession(user.token, { serviceId: other, type: 'Dial' }, 404);
    expect((await createSession(user.token, { serviceId: service, type: 'Listen' }, 400)).body.error.cause.field).toBe('type');
    expect((await createSession(user.token, { type: 'Dial' }, 400)).body.error.cause.field).toBe('serviceId');
    await id('/service-policies', { name: 'bind-bind', type: 'Bind', semantic: 'AllOf', identityRoles: ['#bind'], serviceRoles: ['#bind'] });
    expect((await createSession(user.token, { serviceId: service, type: 'Bind' })).body.data.type).toBe('Bind');
  });

  it('answers 400 NO_EDGE_ROUTERS_AVAILABLE when no edge router is shared', async () => {
    const { user } = await network('noer');
    const lonely = await id('/services', { name: 'noer-lonely', encryptionRequired: true, roleAttributes: ['noer-lonely'] });
    await id('/service-policies', { name: 'noer-lonely-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#noer'], serviceRoles: ['#noer-lonely'] });
    expect((await createSession(user.token, { serviceId: lonely }, 400)).body.error.code).toBe('NO_EDGE_ROUTERS_AVAILABLE');
  });

  it('refuses a session whose posture checks fail with 409 INVALID_POSTURE and records the failed request', async () => {
    const { user, service } = await network('posture');
    await id('/posture-checks', { name: 'posture-domain', typeId: 'DOMAIN', domains: ['corp.example'], roleAttributes: ['posture'] });
    const guarded = await id('/services', { name: 'posture-guarded', encryptionRequired: true, roleAttributes: ['posture-guarded'] });
    await id('/service-edge-router-policies', { name: 'posture-guarded-serp', semantic: 'AllOf', serviceRoles: ['#posture-guarded'], edgeRouterRoles: ['#posture'] });
    const policy = await id('/service-policies', {
      name: 'posture-guarded-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#posture'], serviceRoles: ['#posture-guarded'], postureCheckRoles: ['#posture'],
    });
    // The spec lists no 409 for POST /sessions; OpenZiti answers posture failures with it all the same.
    const r = await createSession(user.token, { serviceId: guarded }, 409, true);
    expect(r.body.error.code).toBe('INVALID_POSTURE');
    const failed = (await api.get(`/identities/${user.id}/failed-service-requests`)).body.data;
    expect(failed).toEqual([expect.objectContaining({
      serviceId: guarded, serviceName: 'posture-guarded', sessionType: 'Dial',
      policyFailures: [expect.objectContaining({ policyId: policy, policyName: 'posture-guarded-dial', checks: [expect.objectContaining({ postureCheckType: 'DOMAIN' })] })],
    })]);
    await api.get('/identities/no-such-identity/failed-service-requests', 404);
    // The plain service, granted by a policy without checks, still works.
    await createSession(user.token, { serviceId: service });
  });

  // The gateway sends the creations arriving together in one CreateSessions call: each request
  // still gets a session of its own caller, and a refusal in the envelope a lone request gets.
  it('answers creations arriving together from several identities each for its own caller, refusals in their own envelopes', async () => {
    const nets: Array<Awaited<ReturnType<typeof network>>> = [];
    for (const tag of ['together-a', 'together-b', 'together-c']) nets.push(await network(tag));
    const apiSessions = await Promise.all(nets.map(async (n) => (await f.c.http.get(`${C}/current-api-session`, { session: n.user.token, expectStatus: 200 })).body.data.id as string));
    const ungranted = await id('/services', { name: 'together-ungranted', encryptionRequired: true });
    // Per identity: its service twice, a Bind no policy grants, a service no policy grants.
    const asks = nets.flatMap((n, i) => [
      { i, body: { serviceId: n.service, type: 'Dial' }, status: 201 },
      { i, body: { serviceId: n.service, type: 'Dial' }, status: 201 },
      { i, body: { serviceId: n.service, type: 'Bind' }, status: 400 },
      { i, body: { serviceId: ungranted, type: 'Dial' }, status: 404 },
    ]);
    // An error envelope names the request it answers; the rest is the same for the same refusal.
    const withoutRequestId = ({ requestId, ...error }: Record<string, unknown>) => {
      expect(requestId).toBeTruthy();
      return error;
    };
    const refusalOf = async (a: (typeof asks)[number]) => withoutRequestId((await createSession(nets[a.i]!.user.token, a.body, a.status)).body.error);
    const alone = await Promise.all(asks.filter((a) => a.status !== 201).map(refusalOf));
    const counted = ['CreateSessions', 'CreateSession', 'GetIdentity', 'GetApiSession'];
    const before = await grpcCallsOf(...counted);

    const answers = await Promise.all(asks.map((a) => createSession(nets[a.i]!.user.token, a.body, a.status)));

    const calls = await grpcCallsOf(...counted);
    // Each item's own principal says who its caller is: another's would send the session
    // service to the identity and auth services to learn it.
    expect([calls.CreateSession, calls.GetIdentity, calls.GetApiSession]).toEqual([before.CreateSession, before.GetIdentity, before.GetApiSession]);
    expect(calls.CreateSessions - before.CreateSessions).toBeGreaterThan(0);
    expect(calls.CreateSessions - before.CreateSessions).toBeLessThan(asks.length);
    answers.forEach((r, k) => {
      const { i, status } = asks[k]!;
      if (status === 201) expect(r.body.data).toMatchObject({ identityId: nets[i]!.user.id, apiSessionId: apiSessions[i], serviceId: nets[i]!.service, type: 'Dial' });
    });
    expect(answers.filter((_, k) => asks[k]!.status !== 201).map((r) => withoutRequestId(r.body.error))).toEqual(alone);
    // Asked twice at once, one session; one of its own per identity.
    const ids = answers.filter((_, k) => asks[k]!.status === 201).map((r) => r.body.data.id as string);
    expect(ids.filter((_, k) => k % 2 === 1)).toEqual(ids.filter((_, k) => k % 2 === 0));
    expect(new Set(ids).size).toBe(nets.length);
    for (const [i, n] of nets.entries()) {
      const own = await f.c.http.get(`${C}/sessions`, { session: n.user.token, expectStatus: 200 });
      expect(own.body.data.map((x: { id: string; identityId: string }) => [x.id, x.identityId])).toEqual([[ids[i * 2], n.user.id]]);
    }
  });

  it('shows a caller only its own sessions, and an admin everyone\'s', async () => {
    const a = await network('own-a');
    const b = await network('own-b');
    const sa = (await createSession(a.user.token, { serviceId: a.service })).body.data.id as string;
    const sb = (await createSession(b.user.token, { serviceId: b.service })).body.data.id as string;
    await f.c.http.get(`${C}/sessions/${sb}`, { session: a.user.token, expectStatus: 404 });
    // The spec lists no 404 for this delete; OpenZiti answers an unknown (or foreign) id with it.
    await f.c.http.delete(`${C}/sessions/${sb}`, { session: a.user.token, expectStatus: 404, skipValidation: true });
    const all = await f.c.http.get(`${C}/sessions?limit=500`, { session: f.admin, expectStatus: 200 });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([sa, sb]));
    await f.c.http.delete(`${C}/sessions/${sa}`, { session: a.user.token, expectStatus: 200 });
    await api.del(`/sessions/${sb}`);
    await api.get(`/sessions/${sb}`, 404);
  });

  it('ends the sessions of an API session at logout', async () => {
    const { user, service } = await network('logout');
    const s = (await createSession(user.token, { serviceId: service })).body.data.id as string;
    await f.c.http.delete(`${C}/current-api-session`, { session: user.token, expectStatus: 200 });
    await eventually(gone(s));
  });

  it('ends them also when the session service was down during the logout', async () => {
    const { user, service } = await network('outage');
    const s = (await createSession(user.token, { serviceId: service })).body.data.id as string;
    const sessionService = f.c.running.service('session');
    await sessionService.stop();
    await f.c.http.delete(`${C}/current-api-session`, { session: user.token, expectStatus: 200 });
    await sessionService.start();
    await eventually(gone(s));
  });

  it('ends the sessions a policy removal takes access from, and no others', async () => {
    const a = await network('polrm');
    const keep = await network('polkeep');
    const s = (await createSession(a.user.token, { serviceId: a.service })).body.data.id as string;
    const k = (await createSession(keep.user.token, { serviceId: keep.service })).body.data.id as string;
    await api.del(`/service-policies/${a.dial}`);
    await eventually(gone(s));
    await api.get(`/sessions/${k}`, 200);
  });

  it('ends sessions when the identity is disabled or loses its role, or the service is deleted', async () => {
    const a = await network('disable');
    const s1 = (await createSession(a.user.token, { serviceId: a.service })).body.data.id as string;
    await api.post(`/identities/${a.user.id}/disable`, { durationMinutes: 0 }, 200);
    await eventually(gone(s1));
    const b = await network('role');
    const s2 = (await createSession(b.user.token, { serviceId: b.service })).body.data.id as string;
    await api.patch(`/identities/${b.user.id}`, { roleAttributes: ['elsewhere'] });
    await eventually(gone(s2));
    const c = await network('svcdel');
    const s3 = (await createSession(c.user.token, { serviceId: c.service })).body.data.id as string;
    await api.del(`/services/${c.service}`);
    await eventually(gone(s3));
  });
});
