/**
 * Controller settings end to end: the seeded global object, overrides of a registered
 * controller, effective settings (global with the override laid over), the update, patch and
 * delete the spec puts on `/{id}/effective`, validation naming the field, admin only, and
 * persistence across a restart of the whole controller.
 */
import { describe, expect, it } from 'vitest';
import { useController, type ControllerFixture } from '../support/controller.js';
import { adminApi, M } from '../support/admin-api.js';
import { createPasswordIdentity } from '../support/password-identity.js';

let f: ControllerFixture;
useController((fx) => { f = fx; });
const { get, post, put, patch, del } = adminApi(() => f.c, () => f.admin);

const GLOBAL_REDIRECTS = [
  'openziti://auth/callback',
  'https://127.0.0.1:*/auth/callback',
  'http://127.0.0.1:*/auth/callback',
  'https://localhost:*/auth/callback',
  'http://localhost:*/auth/callback',
  'http://[::1]:*/auth/callback',
  'https://[::1]:*/auth/callback',
];
const GLOBAL_LOGOUTS = GLOBAL_REDIRECTS.map((u) => u.replace('/auth/callback', '/auth/logout'));

const path = (id: string, sub = '') => `/controller-settings/${encodeURIComponent(id)}${sub}`;
const effective = async (id: string) => (await get(path(id, '/effective'))).body.data;

/** The id of the controller this test runs (the gateway registers itself at start). */
async function controllerId(): Promise<string> {
  const controllers = (await get('/controllers')).body.data as { id: string; isOnline: boolean }[];
  return controllers.find((c) => c.isOnline)!.id;
}

/** Puts the global object back to OpenZiti's defaults, so each test starts from them. */
async function resetGlobal() {
  await put(path('global', '/effective'), { oidc: { redirectUris: GLOBAL_REDIRECTS, postLogoutUris: GLOBAL_LOGOUTS } });
}

/** Removes the override of a controller, if any. */
async function dropOverride(id: string) {
  await f.c.http.delete(`${M}${path(id, '/effective')}`, { session: f.admin, skipValidation: true });
}

describe('controller settings', () => {
  it('lists and reads the global settings seeded with OpenZiti\'s default OIDC URIs', async () => {
    const list = await get('/controller-settings');
    expect(list.body.data).toEqual([expect.objectContaining({
      id: 'global', oidc: { redirectUris: GLOBAL_REDIRECTS, postLogoutUris: GLOBAL_LOGOUTS }, tags: {},
      _links: { self: { href: './controller-settings/global' } },
    })]);
    expect(list.body.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 1 });
    expect(list.body.meta.filterableFields).toEqual(expect.arrayContaining(['id', 'createdAt', 'updatedAt', 'tags']));

    expect((await get(path('global'))).body.data).toMatchObject({ id: 'global', oidc: { redirectUris: GLOBAL_REDIRECTS } });
    const e = await effective('global');
    expect(e).toMatchObject({ id: 'global', effective: { oidc: { redirectUris: GLOBAL_REDIRECTS, postLogoutUris: GLOBAL_LOGOUTS } } });
    expect(e.instance).toEqual(e.effective);
  });

  it('creates an override for a controller and lays it over the global settings', async () => {
    const ctrl = await controllerId();
    // Without an override a controller runs with the global settings.
    const before = await effective(ctrl);
    expect(before).toMatchObject({ id: ctrl, effective: { oidc: { redirectUris: GLOBAL_REDIRECTS, postLogoutUris: GLOBAL_LOGOUTS } } });
    expect(before).not.toHaveProperty('instance');
    await get(path(ctrl), 404);

    const created = await post('/controller-settings', { controllerId: ctrl, oidc: { redirectUris: ['https://app.example/cb'] }, tags: { site: 'a' } });
    expect(created.body.data).toEqual({ id: ctrl, _links: { self: { href: `./controller-settings/${ctrl}` } } });
    expect((await get(path(ctrl))).body.data).toMatchObject({ id: ctrl, oidc: { redirectUris: ['https://app.example/cb'] }, tags: { site: 'a' } });
    expect((await get(path(ctrl))).body.data.oidc).not.toHaveProperty('postLogoutUris');

    let e = await effective(ctrl);
    expect(e).toMatchObject({
      id: ctrl, tags: { site: 'a' },
      effective: { oidc: { redirectUris: ['https://app.example/cb'], postLogoutUris: GLOBAL_LOGOUTS } },
      instance: { oidc: { redirectUris: ['https://app.example/cb'] } },
    });
    const ids = (await get('/controller-settings')).body.data.map((s: { id: string }) => s.id);
    expect(ids).toEqual(['global', ctrl]);
    const filtered = await get(`/controller-settings?filter=${encodeURIComponent(`id != "global"`)}`);
    expect(filtered.body.data.map((s: { id: string }) => s.id)).toEqual([ctrl]);

    // An inherited list follows the global one; an overridden one does not.
    await patch(path('global', '/effective'), { oidc: { postLogoutUris: ['https://global.example/out'] } });
    e = await effective(ctrl);
    expect(e.effective.oidc).toEqual({ redirectUris: ['https://app.example/cb'], postLogoutUris: ['https://global.example/out'] });
    expect((await get(path('global'))).body.data.oidc).toEqual({ redirectUris: GLOBAL_REDIRECTS, postLogoutUris: ['https://global.example/out'] });

    await dropOverride(ctrl);
    await resetGlobal();
  });

  it('patches the fields present, replaces every field on PUT, and deletes an override', async () => {
    const ctrl = await controllerId();
    await post('/controller-settings', { controllerId: ctrl, oidc: { redirectUris: ['https://a.example/cb'], postLogoutUris: ['https://a.example/out'] } });

    // An empty list overrides with nothing; null gives the list back to global.
    await patch(path(ctrl, '/effective'), { oidc: { postLogoutUris: [] } });
    expect((await effective(ctrl)).effective.oidc).toEqual({ redirectUris: ['https://a.example/cb'], postLogoutUris: [] });
    await patch(path(ctrl, '/effective'), { oidc: { redirectUris: null }, tags: { env: 'dev' } });
    expect((await effective(ctrl)).effective.oidc).toEqual({ redirectUris: GLOBAL_REDIRECTS, postLogoutUris: [] });
    expect((await get(path(ctrl))).body.data).toMatchObject({ oidc: { postLogoutUris: [] }, tags: { env: 'dev' } });
    await patch(path(ctrl, '/effective'), {});
    expect((await get(path(ctrl))).body.data).toMatchObject({ oidc: { postLogoutUris: [] }, tags: { env: 'dev' } });

    await put(path(ctrl, '/effective'), { oidc: { redirectUris: ['openziti://other/cb'] } });
    const d = (await get(path(ctrl))).body.data;
    expect(d.oidc).toEqual({ redirectUris: ['openziti://other/cb'] });
    expect(d.tags).toEqual({});
    expect((await effective(ctrl)).effective.oidc).toEqual({ redirectUris: ['openziti://other/cb'], postLogoutUris: GLOBAL_LOGOUTS });

    // PUT on global replaces too: a list left out is empty, since global inherits from nothing.
    await put(path('global', '/effective'), { oidc: { redirectUris: ['https://only.example/cb'] }, tags: { g: true } });
    expect((await get(path('global'))).body.data).toMatchObject({ oidc: { redirectUris: ['https://only.example/cb'], postLogoutUris: [] }, tags: { g: true } });
    await resetGlobal();

    await del(path(ctrl, '/effective'));
    await get(path(ctrl), 404);
    expect(await effective(ctrl)).not.toHaveProperty('instance');
    // The spec lists no 404 for this delete; an unknown id is still not found.
    await f.c.http.delete(`${M}${path(ctrl, '/effective')}`, { session: f.admin, expectStatus: 404, skipValidation: true });
  });

  it('keeps the global settings: they can be changed but not deleted', async () => {
    const r = await del(path('global', '/effective'), 400);
    expect(r.body.error.code).toBe('ENTITY_CAN_NOT_BE_DELETED');
    expect((await get(path('global'))).body.data.oidc.redirectUris).toEqual(GLOBAL_REDIRECTS);
  });

  it('refuses bad bodies naming the field, and changes nothing', async () => {
    const ctrl = await controllerId();
    const create = async (body: unknown, field: string, code = 'COULD_NOT_VALIDATE') => {
      const r = await post('/controller-settings', body, 400);
      expect(r.body.error).toMatchObject({ code, cause: { field } });
    };
    await create({ oidc: { redirectUris: [] } }, 'controllerId');
    await create({ controllerId: '' }, 'controllerId');
    await create({ controllerId: 'global' }, 'controllerId');
    await create({ controllerId: 'any' }, 'controllerId');
    await create({ controllerId: 'no-such-controller' }, 'controllerId', 'REFERENCED_ENTITY_NOT_FOUND');
    await create({ controllerId: ctrl, oidc: { redirectUris: 'https://a.example/cb' } }, 'oidc.redirectUris');
    await create({ controllerId: ctrl, oidc: { postLogoutUris: ['https://ok.example/out', 'no scheme'] } }, 'oidc.postLogoutUris.1');
    await create({ controllerId: ctrl, oidc: { redirectUris: [''] } }, 'oidc.redirectUris.0');
    await create({ controllerId: ctrl, oidc: 'on' }, 'oidc');
    await create({ controllerId: ctrl, tags: 'not a map' }, 'tags');
    const notJson = await f.c.http.post(`${M}/controller-settings`, { body: [ctrl], session: f.admin, expectStatus: 400 });
    expect(notJson.body.error.code).toBe('COULD_NOT_PARSE_BODY');
    expect((await get('/controller-settings')).body.meta.pagination.totalCount).toBe(1);

    await post('/controller-settings', { controllerId: ctrl });
    await create({ controllerId: ctrl }, 'controllerId');
    expect((await get(path(ctrl))).body.data.oidc).toEqual({});

    const update = async (method: typeof put, body: unknown, field: string) => {
      expect((await method(path(ctrl, '/effective'), body, 400)).body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field } });
    };
    await update(put, { oidc: { redirectUris: [42] } }, 'oidc.redirectUris.0');
    await update(patch, { oidc: { postLogoutUris: ['https://x.example/ spaced'] } }, 'oidc.postLogoutUris.0');
    await update(patch, { tags: [] }, 'tags');
    expect((await get(path(ctrl))).body.data).toMatchObject({ oidc: {}, tags: {} });
    await dropOverride(ctrl);
  });

  it('answers unknown ids and bad list parameters', async () => {
    await get(path('no-such-controller'), 404);
    await get(path('any', '/effective'), 404);
    await get(path('no-such-controller', '/effective'), 404);
    await put(path('no-such-controller', '/effective'), { oidc: { redirectUris: [] } }, 404);
    await patch(path('no-such-controller', '/effective'), { tags: {} }, 404);
    await f.c.http.delete(`${M}${path('no-such-controller', '/effective')}`, { session: f.admin, expectStatus: 404, skipValidation: true });
    expect((await get(`/controller-settings?filter=${encodeURIComponent('nope = 1')}`, 400)).body.error.code).toBe('INVALID_FILTER');
    expect((await get('/controller-settings?limit=x', 400)).body.error.code).toBe('INVALID_PAGINATION');
  });

  it('refuses callers who are not admins', async () => {
    const ctrl = await controllerId();
    const user = await createPasswordIdentity(f.c, f.admin, 'settings-user', 'settings-password-1');
    const calls: [string, string, unknown?][] = [
      ['get', '/controller-settings'],
      ['post', '/controller-settings', { controllerId: ctrl }],
      ['get', path('global')],
      ['get', path('global', '/effective')],
      ['put', path('global', '/effective'), { oidc: { redirectUris: [] } }],
      ['patch', path('global', '/effective'), { oidc: { redirectUris: [] } }],
      ['delete', path(ctrl, '/effective')],
    ];
    for (const [method, p, body] of calls) {
      const http = f.c.http[method as 'get'];
      for (const session of [user.token, undefined]) {
        const r = await http(`${M}${p}`, { body, session, expectStatus: 401 } as never);
        expect(r.body.error.code).toBe('UNAUTHORIZED');
      }
    }
    expect((await get(path('global'))).body.data.oidc.redirectUris).toEqual(GLOBAL_REDIRECTS);
    await get(path(ctrl), 404);
  });

  it('keeps the settings across a restart of the whole controller', async () => {
    const ctrl = await controllerId();
    await post('/controller-settings', { controllerId: ctrl, oidc: { redirectUris: ['https://kept.example/cb'] }, tags: { kept: true } });
    await patch(path('global', '/effective'), { oidc: { postLogoutUris: ['https://kept.example/out'] } });
    const before = (await get('/controller-settings')).body.data;

    await f.c.restart();
    f.admin = await f.c.login();
    expect((await get('/controller-settings')).body.data).toEqual(before);
    // The restarted gateway registers anew; the settings of the earlier instance stay its own.
    expect(await controllerId()).not.toBe(ctrl);
    expect((await effective(ctrl)).effective.oidc).toEqual({ redirectUris: ['https://kept.example/cb'], postLogoutUris: ['https://kept.example/out'] });
    expect((await effective(await controllerId())).effective.oidc).toEqual({ redirectUris: GLOBAL_REDIRECTS, postLogoutUris: ['https://kept.example/out'] });
  });
});
