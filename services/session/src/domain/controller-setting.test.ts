import { describe, expect, it } from 'vitest';
import { assertCreatable, assertDeletable, changesOf, effectiveOf, type ControllerSetting } from './controller-setting.js';

const at = (s: string) => new Date(`2030-01-01T00:00:${s}Z`);
const global: ControllerSetting = {
  id: 'global', oidc: { redirectUris: ['openziti://auth/callback'], postLogoutUris: ['openziti://auth/logout'] },
  tags: { scope: 'all' }, createdAt: at('00'), updatedAt: at('10'),
};
const override = (oidc: ControllerSetting['oidc'], updatedAt = at('05')): ControllerSetting =>
  ({ id: 'ctrl-1', oidc, tags: { own: true }, createdAt: at('01'), updatedAt });

describe('controller settings', () => {
  it('inherits each list the override leaves unset, and keeps an empty one as set', () => {
    const e = effectiveOf('ctrl-1', global, override({ redirectUris: ['https://app/cb'], postLogoutUris: null }));
    expect(e.effective).toEqual({ redirectUris: ['https://app/cb'], postLogoutUris: ['openziti://auth/logout'] });
    expect(e.instance).toEqual({ redirectUris: ['https://app/cb'], postLogoutUris: null });
    expect(effectiveOf('ctrl-1', global, override({ redirectUris: null, postLogoutUris: [] })).effective)
      .toEqual({ redirectUris: ['openziti://auth/callback'], postLogoutUris: [] });
  });

  it('answers a controller without an override with the global settings and no instance', () => {
    const e = effectiveOf('ctrl-2', global, undefined);
    expect(e).toMatchObject({ id: 'ctrl-2', instance: null, tags: {}, createdAt: global.createdAt, updatedAt: global.updatedAt });
    expect(e.effective).toEqual(global.oidc);
  });

  it('dates the effective settings by the later change of global and override', () => {
    expect(effectiveOf('ctrl-1', global, override(global.oidc, at('20'))).updatedAt).toEqual(at('20'));
    expect(effectiveOf('ctrl-1', global, override(global.oidc, at('05'))).updatedAt).toEqual(at('10'));
  });

  it('refuses the reserved ids at creation and the global object at deletion', () => {
    for (const id of ['global', 'any', '']) expect(() => assertCreatable(id)).toThrow(expect.objectContaining({ fieldCause: expect.objectContaining({ field: 'controllerId' }) }));
    expect(() => assertCreatable('ctrl-1')).not.toThrow();
    expect(() => assertDeletable('global')).toThrow(expect.objectContaining({ code: 'ENTITY_CAN_NOT_BE_DELETED' }));
    expect(() => assertDeletable('ctrl-1')).not.toThrow();
  });

  it('writes only the masked fields; a null list on global is empty, on an override inherits', () => {
    const input = { oidc: { redirectUris: null, postLogoutUris: ['x:y'] }, tags: { a: 'b' } };
    expect(changesOf('ctrl-1', input, ['oidc.redirectUris'])).toEqual({ redirectUris: null });
    expect(changesOf('global', input, ['oidc.redirectUris', 'tags'])).toEqual({ redirectUris: [], tags: { a: 'b' } });
    expect(changesOf('ctrl-1', input, [])).toEqual({});
    expect(() => changesOf('ctrl-1', input, ['name'])).toThrow(expect.objectContaining({ code: 'COULD_NOT_VALIDATE' }));
  });
});
