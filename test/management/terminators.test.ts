/**
 * Terminators end to end: CRUD of every field, validation naming the field, filters, the
 * `/services/{id}/terminators` sub-lists of both APIs, and deletion with their service or router.
 */
import { describe, expect, it } from 'vitest';
import { useController, type ControllerFixture } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';
import { createPasswordIdentity } from '../support/password-identity.js';
import { eventually } from '../support/eventually.js';

const C = '/edge/client/v1';
let f: ControllerFixture;
useController((fx) => { f = fx; });
const { get, post, put, patch, del } = adminApi(() => f.c, () => f.admin);
const id = async (path: string, body: unknown) => (await post(path, body)).body.data.id as string;

const gone = (terminatorId: string) => async () => (await f.c.http.get(`/edge/management/v1/terminators/${terminatorId}`, { session: f.admin })).status === 404;

/** A service and an edge router to host it on. */
async function hosting(tag: string) {
  const service = await id('/services', { name: `${tag}-svc`, encryptionRequired: true, roleAttributes: [tag] });
  const router = await id('/edge-routers', { name: `${tag}-er`, roleAttributes: [tag] });
  return { service, router };
}

const terminator = (service: string, router: string, extra: Record<string, unknown> = {}) =>
  id('/terminators', { service, router, binding: 'edge', address: `hosted:${service}`, ...extra });

describe('terminators', () => {
  it('creates, reads, replaces, patches and deletes a terminator with every field', async () => {
    const { service, router } = await hosting('crud');
    const other = await id('/services', { name: 'crud-other-svc', encryptionRequired: true });
    const transit = await id('/transit-routers', { name: 'crud-tr' });
    const created = await post('/terminators', {
      service, router, binding: 'transport', address: 'tcp:10.0.0.1:80', identity: 'host-1', identitySecret: 'c2VjcmV0',
      cost: 12, precedence: 'required', tags: { env: 'dev', on: true, none: null },
    });
    const tid = created.body.data.id as string;
    expect(created.body.data._links.self.href).toBe(`./terminators/${tid}`);
    let d = (await get(`/terminators/${tid}`)).body.data;
    expect(d).toMatchObject({
      id: tid, serviceId: service, service: { id: service, name: 'crud-svc', entity: 'services' },
      routerId: router, router: { id: router, name: 'crud-er', entity: 'edge-routers' },
      binding: 'transport', address: 'tcp:10.0.0.1:80', identity: 'host-1', cost: 12, dynamicCost: 12, precedence: 'required',
      hostId: '', isSystem: false, tags: { env: 'dev', on: true, none: null },
    });
    expect(d).not.toHaveProperty('identitySecret');
    expect(JSON.stringify(d)).not.toContain('c2VjcmV0');

    // PUT replaces every writable field; the service stays as created (as OpenZiti).
    await put(`/terminators/${tid}`, { service: other, router: transit, binding: 'edge', address: 'hosted:x', tags: { a: 'b' } });
    d = (await get(`/terminators/${tid}`)).body.data;
    expect(d).toMatchObject({
      serviceId: service, routerId: transit, router: { id: transit, name: 'crud-tr', entity: 'transit-routers' },
      binding: 'edge', address: 'hosted:x', identity: 'host-1', cost: 0, precedence: 'default', tags: { a: 'b' },
    });

    await patch(`/terminators/${tid}`, { cost: 65535, precedence: 'failed' });
    d = (await get(`/terminators/${tid}`)).body.data;
    expect(d).toMatchObject({ routerId: transit, binding: 'edge', address: 'hosted:x', cost: 65535, precedence: 'failed', tags: { a: 'b' } });
    await patch(`/terminators/${tid}`, { router, address: 'hosted:y' });
    expect((await get(`/terminators/${tid}`)).body.data).toMatchObject({ routerId: router, address: 'hosted:y', cost: 65535 });

    await del(`/terminators/${tid}`);
    await get(`/terminators/${tid}`, 404);
    await del(`/terminators/${tid}`, 404);
    await put(`/terminators/${tid}`, { service, router, binding: 'edge', address: 'a' }, 404);
  });

  it('refuses bad bodies naming the field, and changes nothing', async () => {
    const { service, router } = await hosting('bad');
    const field = async (body: Record<string, unknown>, name: string, code = 'COULD_NOT_VALIDATE') => {
      const r = await post('/terminators', { service, router, binding: 'edge', address: 'a', ...body }, 400);
      expect(r.body.error).toMatchObject({ code, cause: { field: name } });
    };
    await field({ binding: undefined }, 'binding');
    await field({ address: '' }, 'address');
    await field({ cost: 65536 }, 'cost');
    await field({ cost: -1 }, 'cost');
    await field({ precedence: 'sometimes' }, 'precedence');
    await field({ identitySecret: 'not base64!' }, 'identitySecret');
    await field({ service: 'no-such-service' }, 'service', 'REFERENCED_ENTITY_NOT_FOUND');
    await field({ router: 'no-such-router' }, 'router', 'REFERENCED_ENTITY_NOT_FOUND');
    expect((await get(`/services/${service}/terminators`)).body.data).toEqual([]);

    const tid = await terminator(service, router, { cost: 5 });
    const r = await patch(`/terminators/${tid}`, { router: 'no-such-router', cost: 7 }, 400);
    expect(r.body.error).toMatchObject({ code: 'REFERENCED_ENTITY_NOT_FOUND', cause: { field: 'router', value: 'no-such-router' } });
    expect((await put(`/terminators/${tid}`, { service, router, address: 'a' }, 400)).body.error.cause.field).toBe('binding');
    expect((await patch(`/terminators/${tid}`, { cost: 1.5 }, 400)).body.error.cause.field).toBe('cost');
    expect((await get(`/terminators/${tid}`)).body.data).toMatchObject({ routerId: router, cost: 5 });
  });

  it('filters, sorts and pages the list', async () => {
    const { service, router } = await hosting('list');
    const low = await terminator(service, router, { binding: 'list-binding', cost: 1 });
    const high = await terminator(service, router, { binding: 'list-binding', cost: 900, precedence: 'required' });
    await terminator(service, router, { binding: 'list-other' });
    const ids = async (filter: string) =>
      (await get(`/terminators?filter=${encodeURIComponent(filter)}`)).body.data.map((t: { id: string }) => t.id);
    expect(await ids('binding = "list-binding" sort by cost desc')).toEqual([high, low]);
    expect(await ids('binding = "list-binding" and precedence = "required"')).toEqual([high]);
    expect(await ids(`service = "${service}" and cost >= 1 and cost < 900`)).toEqual([low]);
    const page = await get(`/terminators?limit=1&offset=1&filter=${encodeURIComponent(`router = "${router}" sort by cost`)}`);
    expect(page.body.meta.pagination).toEqual({ limit: 1, offset: 1, totalCount: 3 });
    expect(page.body.data.map((t: { id: string }) => t.id)).toEqual([low]);
    expect(page.body.meta.filterableFields).toEqual(expect.arrayContaining(['service', 'router', 'binding', 'address', 'cost', 'precedence']));
    expect((await get(`/terminators?filter=${encodeURIComponent('nope = 1')}`, 400)).body.error.code).toBe('INVALID_FILTER');
  });

  it('lists a service\'s terminators on both APIs, on the client only for a service the caller may see', async () => {
    const { service, router } = await hosting('sub');
    const hidden = await id('/services', { name: 'sub-hidden-svc', encryptionRequired: true });
    const tid = await terminator(service, router, { identity: 'sub-host' });
    await terminator(hidden, router);
    const mgmt = await get(`/services/${service}/terminators`);
    expect(mgmt.body.data.map((t: { id: string }) => t.id)).toEqual([tid]);
    expect(mgmt.body.meta.pagination.totalCount).toBe(1);
    // The spec lists no 404 for the sub-list; OpenZiti answers an unknown service with one.
    await f.c.http.get('/edge/management/v1/services/no-such-service/terminators', { session: f.admin, expectStatus: 404, skipValidation: true });

    const user = await createPasswordIdentity(f.c, f.admin, 'sub-user', 'sub-password-1');
    await patch(`/identities/${user.id}`, { roleAttributes: ['sub'] });
    await id('/service-policies', { name: 'sub-bind', type: 'Bind', semantic: 'AllOf', identityRoles: ['#sub'], serviceRoles: ['#sub'] });
    const seen = await f.c.http.get(`${C}/services/${service}/terminators`, { session: user.token, expectStatus: 200 });
    expect(seen.body.data).toEqual([expect.objectContaining({ id: tid, serviceId: service, service: expect.objectContaining({ name: 'sub-svc' }), routerId: router, identity: 'sub-host' })]);
    expect(seen.body.data[0]).not.toHaveProperty('address');
    // Not visible is not found; the client spec lists no 404 here either.
    await f.c.http.get(`${C}/services/${hidden}/terminators`, { session: user.token, expectStatus: 404, skipValidation: true });
    await f.c.http.get(`${C}/services/${service}/terminators`, { expectStatus: 401 });
  });

  it('deletes the terminators of a deleted service or router', async () => {
    const { service, router } = await hosting('cascade');
    const other = await id('/services', { name: 'cascade-other-svc', encryptionRequired: true });
    const transit = await id('/transit-routers', { name: 'cascade-tr' });
    const ofService = await terminator(service, transit);
    const ofRouter = await terminator(other, router);
    const kept = await terminator(other, transit);
    await del(`/services/${service}`);
    await eventually(gone(ofService));
    await del(`/edge-routers/${router}`);
    await eventually(gone(ofRouter));
    await del(`/transit-routers/${transit}`);
    await eventually(gone(kept));
    expect((await get(`/services/${other}/terminators`)).body.data).toEqual([]);
  });
});
