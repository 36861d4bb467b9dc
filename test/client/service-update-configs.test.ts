/**
 * The service-update marker and configs: tunnelers log in without naming config types and ask
 * for them with each service list (`GET /services?configTypes=all`, as the C SDK does), so the
 * marker has to move when a config of a service they see changes, whatever config types the API
 * session named (OpenZiti marks every identity with access to the config's services).
 */
import { describe, expect, it } from 'vitest';
import { adminApi } from '../support/admin-api.js';
import { useController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const { get, post, patch } = adminApi(() => c, () => admin);

describe('service updates and configs', () => {
  it('moves when a config of a service the caller sees changes, though its API session named no config types', async () => {
    const user = await createPasswordIdentity(c, admin, 'cfg-marker-user', 'cfg-marker-password');
    await patch(`/identities/${user.id}`, { roleAttributes: ['cfg-mark'] });
    const intercept = (await get('/config-types?filter=name%3D%22intercept.v1%22')).body.data[0].id as string;
    const data = (address: string) => ({ protocols: ['tcp'], addresses: [address], portRanges: [{ low: 80, high: 80 }] });
    const seen = (await post('/configs', { name: 'cfg-marker-seen', configTypeId: intercept, data: data('a.example') })).body.data.id as string;
    const unseen = (await post('/configs', { name: 'cfg-marker-unseen', configTypeId: intercept, data: data('b.example') })).body.data.id as string;
    await post('/services', { name: 'cfg-marker-svc', encryptionRequired: true, roleAttributes: ['cfg-mark'], configs: [seen] });
    await post('/services', { name: 'cfg-marker-other', encryptionRequired: true, roleAttributes: ['cfg-other'], configs: [unseen] });
    await post('/service-policies', { name: 'cfg-marker-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#cfg-mark'], serviceRoles: ['#cfg-mark'] });

    const session = await c.http.get('/edge/client/v1/current-api-session', { session: user.token, expectStatus: 200 });
    expect(session.body.data.configTypes).toEqual([]);
    const marker = async () => (await c.http.get('/edge/client/v1/current-api-session/service-updates', { session: user.token, expectStatus: 200 })).body.data.lastChangeAt as string;
    const settle = () => new Promise((r) => setTimeout(r, 20));

    const first = await marker();
    await settle();
    // A config of a service it does not see: nothing it can list changed.
    await patch(`/configs/${unseen}`, { data: data('b2.example') });
    expect(await marker()).toBe(first);
    // A config of a service it sees: what `GET /services?configTypes=all` shows changed.
    await patch(`/configs/${seen}`, { data: data('a2.example') });
    const second = await marker();
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
    const listed = await c.http.get('/edge/client/v1/services?configTypes=all', { session: user.token, expectStatus: 200 });
    expect(listed.body.data[0].config['intercept.v1'].addresses).toEqual(['a2.example']);
  });
});
