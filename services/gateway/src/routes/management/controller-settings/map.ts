/**
 * Controller settings: HTTP bodies ↔ proto messages, `controllerSettingDetail` and
 * `controllerSettingEffective`.
 */
import type { session } from '@edge/proto';
import { baseEntity, withFields } from '../../shared/entity.js';
import type { ControllerSettingBody } from './schemas.js';

/** The fields PUT replaces; a list PUT leaves out goes back to the global one. */
export const UPDATE_FIELDS = ['oidc.redirectUris', 'oidc.postLogoutUris', 'tags'];

const list = (v: string[] | null | undefined): session.StringList | null => (v == null ? null : { values: v });

export function toFields(b: ControllerSettingBody): session.ControllerSettingFields {
  return {
    oidc: { redirectUris: list(b.oidc?.redirectUris), postLogoutUris: list(b.oidc?.postLogoutUris) },
    tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

/** The fields a PATCH body changes: `oidc: null` both lists, an `oidc` object the lists it names. */
export function patchMask(body: unknown): string[] {
  const b = (body ?? {}) as Record<string, unknown>;
  const mask = Object.hasOwn(b, 'tags') ? ['tags'] : [];
  if (!Object.hasOwn(b, 'oidc')) return mask;
  const o = (b.oidc ?? { redirectUris: null, postLogoutUris: null }) as Record<string, unknown>;
  if (Object.hasOwn(o, 'redirectUris')) mask.push('oidc.redirectUris');
  if (Object.hasOwn(o, 'postLogoutUris')) mask.push('oidc.postLogoutUris');
  return mask;
}

/** `controllerSettings`: the lists that are set (an override leaves the others to global). */
function renderSettings(o: session.OidcSettings__Output | null) {
  return {
    oidc: {
      ...(o?.redirectUris ? { redirectUris: o.redirectUris.values } : {}),
      ...(o?.postLogoutUris ? { postLogoutUris: o.postLogoutUris.values } : {}),
    },
  };
}

/** `controllerSettingDetail`. */
export function renderControllerSetting(s: session.ControllerSetting__Output) {
  return withFields(baseEntity(s, 'controller-settings'), renderSettings(s.oidc));
}

/** `controllerSettingEffective`; `instance` only when the controller has settings of its own. */
export function renderEffective(e: session.ControllerSettingEffective__Output) {
  return withFields(baseEntity(e, 'controller-settings'), {
    effective: renderSettings(e.effective),
    ...(e.instance ? { instance: renderSettings(e.instance) } : {}),
  });
}
