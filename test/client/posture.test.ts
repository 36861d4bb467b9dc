/**
 * Posture responses: what an endpoint reports (`POST /posture-response[-bulk]`) is kept for its
 * API session and decides whether posture-guarded sessions are granted.
 */
import { describe, expect, it } from 'vitest';
import { useController, type ControllerFixture } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';
import { createPasswordIdentity } from '../support/password-identity.js';

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
});
