/**
 * Posture checks end to end: every type with its own fields, version on every change, the
 * built-in types and the distinct role attributes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';

let c: TestController;
let admin: string;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

const { get, post, put, patch, del } = adminApi(() => c, () => admin);

const BODIES: Record<string, Record<string, unknown>> = {
  OS: { operatingSystems: [{ type: 'Windows', versions: ['10.0.19041'] }, { type: 'macOS', versions: [] }] },
  PROCESS: { process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['abc'], signerFingerprint: 'ff' } },
  PROCESS_MULTI: { semantic: 'AnyOf', processes: [{ osType: 'Windows', path: 'C:\\agent.exe', hashes: ['1'], signerFingerprints: ['f1'] }] },
  DOMAIN: { domains: ['corp.local'] },
  MAC: { macAddresses: ['00:11:22:33:44:55'] },
  MFA: { timeoutSeconds: 600, promptOnWake: true, promptOnUnlock: false, ignoreLegacyEndpoints: true },
};

describe('posture checks', () => {
  for (const [typeId, fields] of Object.entries(BODIES)) {
    it(`round-trips a ${typeId} check with its fields`, async () => {
      const id = (await post('/posture-checks', { name: `pc-${typeId}`, typeId, roleAttributes: ['pc'], tags: { t: typeId }, ...fields })).body.data.id;
      const d = (await get(`/posture-checks/${id}`)).body.data;
      expect(d).toMatchObject({ id, name: `pc-${typeId}`, typeId, version: 1, roleAttributes: ['pc'], tags: { t: typeId }, ...fields });
    });
  }

  it('increments version on every change and keeps the fields a patch does not name', async () => {
    const id = (await post('/posture-checks', { name: 'pc-ver', typeId: 'MAC', macAddresses: ['aa'] })).body.data.id;
    await patch(`/posture-checks/${id}`, { typeId: 'MAC', name: 'pc-ver-2' });
    let d = (await get(`/posture-checks/${id}`)).body.data;
    expect(d).toMatchObject({ name: 'pc-ver-2', version: 2, macAddresses: ['aa'] });
    await put(`/posture-checks/${id}`, { name: 'pc-ver-3', typeId: 'MAC', macAddresses: ['bb', 'cc'] });
    d = (await get(`/posture-checks/${id}`)).body.data;
    expect(d).toMatchObject({ name: 'pc-ver-3', version: 3, macAddresses: ['bb', 'cc'], roleAttributes: [] });
    await patch(`/posture-checks/${id}`, { typeId: 'DOMAIN', domains: ['x'] }, 400);
    expect((await get(`/posture-checks/${id}`)).body.data.version).toBe(3);
    await del(`/posture-checks/${id}`);
    await get(`/posture-checks/${id}`, 404);
  });

  it('refuses an unknown type, missing type fields and bad role attributes, naming the field', async () => {
    expect((await post('/posture-checks', { name: 'pc-bad', typeId: 'FACE' }, 400)).body.error.cause.field).toBe('typeId');
    expect((await post('/posture-checks', { name: 'pc-bad', typeId: 'DOMAIN' }, 400)).body.error.cause.field).toBe('domains');
    expect((await post('/posture-checks', { name: 'pc-bad', typeId: 'DOMAIN', domains: [] }, 400)).body.error.cause.field).toBe('domains');
    expect((await post('/posture-checks', { name: 'pc-bad', typeId: 'OS', operatingSystems: [{ type: 'BeOS', versions: [] }] }, 400)).body.error.cause.field).toBe('operatingSystems.0.type');
    expect((await post('/posture-checks', { name: 'pc-bad', typeId: 'MAC', macAddresses: ['a'], roleAttributes: ['@x'] }, 400)).body.error.cause.field).toBe('roleAttributes[0]');
  });

  it('lists the built-in types with their operating systems, and the role attributes in use', async () => {
    const types = await get('/posture-check-types?limit=100');
    const ids = types.body.data.map((t: { id: string }) => t.id).sort();
    expect(ids).toEqual(['DOMAIN', 'MAC', 'MFA', 'OS', 'PROCESS', 'PROCESS_MULTI']);
    const os = (await get('/posture-check-types/OS')).body.data;
    expect(os.name).toBe('Operating System Check');
    // As controller/db/migration_initialize.go addPostureCheckTypes.
    expect(os.operatingSystems).toEqual([
      { type: 'Windows', versions: ['Vista', '7', '8', '10', '2000'] }, { type: 'Linux', versions: ['4.14', '4.19', '5.4', '5.9'] },
      { type: 'Android', versions: ['9', '10', '11'] }, { type: 'macOS', versions: ['10.15', '11.0'] }, { type: 'iOS', versions: ['11', '12'] },
    ]);
    expect(types.body.data.find((t: { id: string }) => t.id === 'PROCESS_MULTI').operatingSystems)
      .toEqual([{ type: 'Windows', versions: [] }, { type: 'macOS', versions: [] }, { type: 'Linux', versions: [] }]);
    await post('/posture-checks', { name: 'pc-attrs', typeId: 'MFA', roleAttributes: ['pc-zeta', 'pc-alpha'] });
    const attrs = await get(`/posture-check-role-attributes?filter=${encodeURIComponent('id contains "pc"')}&sort=name%20asc`);
    expect(attrs.body.data).toEqual(['pc', 'pc-alpha', 'pc-zeta']);
  });
});
