/**
 * Posture responses: what an endpoint reports (`POST /posture-response[-bulk]`) is kept for its
 * API session and decides whether posture-guarded sessions are granted.
 */
import { describe, expect, it } from 'vitest';
import { useController, type ControllerFixture } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';
import { createPasswordIdentity } from '../support/password-identity.js';
import { authenticatorFor } from '../support/totp.js';
import { eventually } from '../support/eventually.js';

const C = '/edge/client/v1';
let f: ControllerFixture;
useController((fx) => { f = fx; });
const api = adminApi(() => f.c, () => f.admin);
const id = async (path: string, body: unknown) => (await api.post(path, body)).body.data.id as string;

/** A user allowed to dial a service only with the domain check `corp.example` passing. */
async function guarded(tag: string) {
  const user = await createPasswordIdentity(f.c, f.admin, `${tag}-user`, `${tag}-password-1`);
  await api.patch(`/identities/${user.id}`, { roleAttributes: [tag] });
  const check = await id('/posture-checks', { name: `${tag}-domain`, typeId: 'DOMAIN', domains: ['corp.example'], roleAttributes: [tag] });
  const service = await id('/services', { name: `${tag}-svc`, encryptionRequired: true, roleAttributes: [tag] });
  await id('/edge-routers', { name: `${tag}-er`, roleAttributes: [tag] });
  await id('/edge-router-policies', { name: `${tag}-erp`, semantic: 'AnyOf', identityRoles: [`#${tag}`], edgeRouterRoles: [`#${tag}`] });
  await id('/service-edge-router-policies', { name: `${tag}-serp`, semantic: 'AllOf', serviceRoles: [`#${tag}`], edgeRouterRoles: [`#${tag}`] });
  await id('/service-policies', {
    name: `${tag}-dial`, type: 'Dial', semantic: 'AllOf', identityRoles: [`#${tag}`], serviceRoles: [`#${tag}`], postureCheckRoles: [`#${tag}`],
  });
  return { user, check, service };
}

const dial = (token: string, serviceId: string, status: number) =>
  f.c.http.post(`${C}/sessions`, { body: { serviceId, type: 'Dial' }, session: token, expectStatus: status, skipValidation: status === 409 });
const respond = (token: string, path: string, body: unknown, status: number) =>
  f.c.http.post(`${C}/${path}`, { body, session: token, expectStatus: status });

describe('posture responses', () => {
  it('grants a guarded session once the endpoint reports a passing domain, and only for that API session', async () => {
    const { user, check, service } = await guarded('pr-domain');
    await dial(user.token, service, 409);
    await respond(user.token, 'posture-response', { id: check, typeId: 'DOMAIN', domain: 'other.example' }, 201);
    await dial(user.token, service, 409);
    const r = await respond(user.token, 'posture-response', { id: check, typeId: 'DOMAIN', domain: 'corp.example' }, 201);
    expect(r.body.data).toEqual({ services: [] });
    await dial(user.token, service, 201);
    // A new API session starts with nothing reported.
    const again = await f.c.http.post(`${C}/authenticate?method=password`, {
      body: { username: 'pr-domain-user', password: 'pr-domain-password-1' }, expectStatus: 200,
    });
    await dial(again.body.data.token as string, service, 409);
  });

  // Regression: a failing response left the session alive, and POST /sessions returned it (201).
  // As postureDataUpdated in controller/model/posture_response_manager.go.
  it('ends a session once a response fails its posture checks, and answers 409 INVALID_POSTURE instead of returning it', async () => {
    const { user, check, service } = await guarded('pr-revoke');
    await respond(user.token, 'posture-response', { id: check, typeId: 'DOMAIN', domain: 'corp.example' }, 201);
    const first = (await dial(user.token, service, 201)).body.data;
    await f.c.http.get(`${C}/sessions/${first.id}`, { session: user.token, expectStatus: 200 });
    await respond(user.token, 'posture-response', { id: check, typeId: 'DOMAIN', domain: 'other.example' }, 201);
    await f.c.http.get(`${C}/sessions/${first.id}`, { session: user.token, expectStatus: 404 });
    expect((await dial(user.token, service, 409)).body.error.code).toBe('INVALID_POSTURE');
    await respond(user.token, 'posture-response', { id: check, typeId: 'DOMAIN', domain: 'corp.example' }, 201);
    expect((await dial(user.token, service, 201)).body.data.id).not.toBe(first.id);
  });

  it('checks posture again before returning an existing session, and ends sessions a posture check change fails', async () => {
    const { user, check, service } = await guarded('pr-recheck');
    const other = (await f.c.http.post(`${C}/authenticate?method=password`, {
      body: { username: 'pr-recheck-user', password: 'pr-recheck-password-1' }, expectStatus: 200,
    })).body.data.token as string;
    const sessions: Array<{ id: string }> = [];
    for (const token of [user.token, other]) {
      await respond(token, 'posture-response', { id: check, typeId: 'DOMAIN', domain: 'corp.example' }, 201);
      sessions.push((await dial(token, service, 201)).body.data);
    }
    expect((await dial(user.token, service, 201)).body.data.id).toBe(sessions[0].id);
    await api.patch(`/posture-checks/${check}`, { typeId: 'DOMAIN', domains: ['elsewhere.example'] });
    // Asked again at once, before any event is handled: checked again, refused.
    expect((await dial(user.token, service, 409)).body.error.code).toBe('INVALID_POSTURE');
    // Not asked again: ended by the re-evaluation the posture check change sets off.
    await eventually(async () => (await f.c.http.get(`/edge/management/v1/sessions/${sessions[1].id}`, { session: f.admin })).status === 404);
  });

  // The spec's postureCheckFailure subtypes require actualValue and expectedValue (the spec
  // validator checks each failure against the subtype its postureCheckType names).
  it('records each failed check with what the endpoint reported and what the check expected', async () => {
    const { user, check, service } = await guarded('pr-values');
    const os = await id('/posture-checks', { name: 'pr-values-os', typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }], roleAttributes: ['pr-values'] });
    const mac = await id('/posture-checks', { name: 'pr-values-mac', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'], roleAttributes: ['pr-values'] });
    const proc = await id('/posture-checks', {
      name: 'pr-values-proc', typeId: 'PROCESS', process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['abc'] }, roleAttributes: ['pr-values'],
    });
    const multi = await id('/posture-checks', {
      name: 'pr-values-multi', typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/usr/bin/agent', hashes: ['abc'] }], roleAttributes: ['pr-values'],
    });
    await respond(user.token, 'posture-response-bulk', [
      { id: check, typeId: 'DOMAIN', domain: 'home.example' },
      { id: os, typeId: 'OS', type: 'Linux', version: '6.1.0' },
      { id: proc, typeId: 'PROCESS', path: '/usr/bin/agent', isRunning: true, hash: 'def', signerFingerprints: ['f1'] },
    ], 200);
    const refused = await dial(user.token, service, 409);
    // The client learns which checks failed, not what they expect.
    expect(JSON.stringify(refused.body.error)).not.toContain('corp.example');
    const [failed] = (await api.get(`/identities/${user.id}/failed-service-requests`)).body.data;
    const byType = Object.fromEntries(failed.policyFailures[0].checks.map((c: { postureCheckType: string }) => [c.postureCheckType, c]));
    expect(byType.DOMAIN).toMatchObject({ postureCheckId: check, actualValue: 'home.example', expectedValue: ['corp.example'] });
    expect(byType.OS).toMatchObject({ actualValue: { type: 'Linux', version: '6.1.0' }, expectedValue: [{ type: 'Windows', versions: ['>=10.0.19041'] }] });
    expect(byType.MAC).toMatchObject({ postureCheckId: mac, actualValue: [], expectedValue: ['aa:bb:cc:dd:ee:ff'] });
    expect(byType.PROCESS).toMatchObject({
      actualValue: { isRunning: true, hash: 'def', signerFingerprints: ['f1'] }, expectedValue: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['abc'] },
    });
    expect(byType.PROCESS_MULTI).toMatchObject({
      postureCheckId: multi, semantic: 'AllOf', actualValue: [{ path: '/usr/bin/agent', isRunning: true, hash: 'def' }], expectedValue: [{ osType: 'Linux', path: '/usr/bin/agent', hashes: ['abc'] }],
    });
  });

  it('takes a bulk body, and refuses bad responses naming the field without storing any of them', async () => {
    const { user, check, service } = await guarded('pr-bulk');
    const bad = await respond(user.token, 'posture-response-bulk', [
      { id: check, typeId: 'DOMAIN', domain: 'corp.example' },
      { id: check, typeId: 'FIREWALL' },
    ], 400);
    expect(bad.body.error.cause.field).toBe('[1].typeId');
    await dial(user.token, service, 409);
    expect((await respond(user.token, 'posture-response', { id: check, typeId: 'DOMAIN' }, 400)).body.error.cause.field).toBe('domain');
    expect((await respond(user.token, 'posture-response', { typeId: 'DOMAIN', domain: 'corp.example' }, 400)).body.error.cause.field).toBe('id');
    await f.c.http.post(`${C}/posture-response`, { body: { id: check, typeId: 'DOMAIN', domain: 'corp.example' }, expectStatus: 401 });
    await respond(user.token, 'posture-response-bulk', [
      { id: 'os', typeId: 'OS', type: 'Linux', version: '6.1.0' },
      { id: check, typeId: 'DOMAIN', domain: 'corp.example' },
    ], 200);
    await dial(user.token, service, 201);
  });

  it('shows whether each posture query passes for the caller\'s API session, per query and per policy', async () => {
    const { user, check, service } = await guarded('pr-query');
    const mfa = await id('/posture-checks', { name: 'pr-query-mfa', typeId: 'MFA', timeoutSeconds: 300, roleAttributes: ['pr-query-mfa'] });
    const mfaPolicy = await id('/service-policies', {
      name: 'pr-query-mfa-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#pr-query'], serviceRoles: ['#pr-query'], postureCheckRoles: ['#pr-query-mfa'],
    });
    type Group = { policyId: string; isPassing: boolean; postureQueries: Array<{ id: string; isPassing: boolean; timeoutRemaining: number }> };
    const groups = async (token: string) => {
      const one = await f.c.http.get(`${C}/services/${service}`, { session: token, expectStatus: 200 });
      const listed = await f.c.http.get(`${C}/services?filter=${encodeURIComponent(`id = "${service}"`)}`, { session: token, expectStatus: 200 });
      expect(listed.body.data[0].postureQueries).toEqual(one.body.data.postureQueries);
      const all = one.body.data.postureQueries as Group[];
      return { domain: all.find((g) => g.policyId !== mfaPolicy)!, mfa: all.find((g) => g.policyId === mfaPolicy)! };
    };
    let g = await groups(user.token);
    expect(g.domain).toMatchObject({ isPassing: false, postureQueries: [{ id: check, isPassing: false, timeoutRemaining: -1 }] });
    expect(g.mfa).toMatchObject({ isPassing: false, postureQueries: [{ id: mfa, isPassing: false, timeoutRemaining: 0 }] });

    await respond(user.token, 'posture-response', { id: check, typeId: 'DOMAIN', domain: 'corp.example' }, 201);
    g = await groups(user.token);
    expect(g.domain).toMatchObject({ isPassing: true, postureQueries: [{ id: check, isPassing: true }] });
    expect(g.mfa.isPassing).toBe(false);
    // Another API session of the same identity has reported nothing.
    const again = await f.c.http.post(`${C}/authenticate?method=password`, {
      body: { username: 'pr-query-user', password: 'pr-query-password-1' }, expectStatus: 200,
    });
    expect((await groups(again.body.data.token as string)).domain.isPassing).toBe(false);
  });

  it('shows an identity\'s posture data on the management API', async () => {
    const { user, check } = await guarded('pr-data');
    const apiSession = (await f.c.http.get(`${C}/current-api-session`, { session: user.token, expectStatus: 200 })).body.data.id as string;
    await respond(user.token, 'posture-response-bulk', [
      { id: 'os-check', typeId: 'OS', type: 'Windows', version: '10.0.19041', build: '19041' },
      { id: check, typeId: 'DOMAIN', domain: 'corp.example' },
      { id: 'mac-check', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
      { id: 'proc-check', typeId: 'PROCESS', path: '/usr/bin/agent', isRunning: true, hash: 'abc', signerFingerprints: ['f1'] },
      { id: 'state', typeId: 'ENDPOINT_STATE', woken: true },
    ], 200);
    const d = (await api.get(`/identities/${user.id}/posture-data`)).body.data;
    expect(d.os).toMatchObject({ postureCheckId: 'os-check', timedOut: false, type: 'Windows', version: '10.0.19041', build: '19041' });
    expect(d.domain).toMatchObject({ postureCheckId: check, domain: 'corp.example' });
    expect(d.mac).toMatchObject({ postureCheckId: 'mac-check', addresses: ['aa:bb:cc:dd:ee:ff'] });
    expect(d.processes).toEqual([expect.objectContaining({ postureCheckId: 'proc-check', isRunning: true, binaryHash: 'abc', signerFingerprints: ['f1'] })]);
    expect(Date.parse(d.os.lastUpdatedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(d.apiSessionPostureData[apiSession]).toMatchObject({ mfa: { apiSessionId: apiSession, passedMfa: false } });
    expect(Date.parse(d.apiSessionPostureData[apiSession].endpointState.wokenAt)).toBeGreaterThan(Date.now() - 60_000);

    const fresh = await createPasswordIdentity(f.c, f.admin, 'pr-data-empty', 'pr-data-password-2');
    const empty = (await api.get(`/identities/${fresh.id}/posture-data`)).body.data;
    expect(empty).toMatchObject({ os: { type: '', version: '' }, domain: { domain: '' }, mac: { addresses: [] }, processes: [] });
    expect(Object.keys(empty.apiSessionPostureData)).toHaveLength(1);
    await api.get('/identities/no-such-identity/posture-data', 404);
  });

  it('passes an MFA posture query once the API session completed MFA, and says so in the posture data', async () => {
    const { user, service } = await guarded('pr-mfa');
    const mfa = await id('/posture-checks', { name: 'pr-mfa-check', typeId: 'MFA', timeoutSeconds: 600, promptOnWake: true, roleAttributes: ['pr-mfa-only'] });
    const policy = await id('/service-policies', {
      name: 'pr-mfa-only-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#pr-mfa'], serviceRoles: ['#pr-mfa'], postureCheckRoles: ['#pr-mfa-only'],
    });
    await f.c.http.post(`${C}/current-identity/mfa`, { session: user.token, expectStatus: 201 });
    const detail = await f.c.http.get(`${C}/current-identity/mfa`, { session: user.token, expectStatus: 200 });
    const app = authenticatorFor(detail.body.data.provisioningUrl);
    await f.c.http.post(`${C}/current-identity/mfa/verify`, { session: user.token, body: { code: await app.next() }, expectStatus: 200 });
    const login = await f.c.http.post(`${C}/authenticate?method=password`, { body: { username: 'pr-mfa-user', password: 'pr-mfa-password-1' }, expectStatus: 200 });
    const token = login.body.data.token as string;
    await f.c.http.post(`${C}/authenticate/mfa`, { session: token, body: { code: await app.next() }, expectStatus: 200 });

    const mfaQuery = async () => {
      const queries = (await f.c.http.get(`${C}/services/${service}`, { session: token, expectStatus: 200 })).body.data.postureQueries;
      return queries.find((g: { policyId: string }) => g.policyId === policy);
    };
    const before = await mfaQuery();
    expect(before).toMatchObject({ isPassing: true, postureQueries: [{ id: mfa, isPassing: true }] });
    // 600 s from MFA completion, counting down.
    expect(before.postureQueries[0].timeoutRemaining).toBeGreaterThan(590);
    expect(before.postureQueries[0].timeoutRemaining).toBeLessThanOrEqual(600);
    await dial(token, service, 201);

    // An unlock does not concern a check that prompts on wake only; a wake cuts the pass to
    // the 5 minute grace period, and the answer names the service.
    const unlocked = await respond(token, 'posture-response', { id: 'state', typeId: 'ENDPOINT_STATE', unlocked: true }, 201);
    expect(unlocked.body.data.services).toEqual([]);
    const woken = await respond(token, 'posture-response', { id: 'state', typeId: 'ENDPOINT_STATE', woken: true }, 201);
    expect(woken.body.data.services).toHaveLength(1);
    expect(woken.body.data.services[0]).toMatchObject({ id: service, name: 'pr-mfa-svc', postureQueryType: 'MFA', timeout: 600 });
    expect(woken.body.data.services[0].timeoutRemaining).toBeGreaterThan(290);
    expect(woken.body.data.services[0].timeoutRemaining).toBeLessThanOrEqual(300);
    const after = await mfaQuery();
    expect(after.isPassing).toBe(true);
    expect(after.postureQueries[0].timeoutRemaining).toBeLessThanOrEqual(300);
    const data = (await api.get(`/identities/${user.id}/posture-data`)).body.data;
    expect(data.apiSessionPostureData[login.body.data.id]).toMatchObject({ mfa: { passedMfa: true } });
    expect(Date.parse(data.apiSessionPostureData[login.body.data.id].mfa.passedAt)).toBeGreaterThan(Date.now() - 60_000);
  });
});
