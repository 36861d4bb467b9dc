/**
 * Controller settings (OpenZiti controller/db/controller_setting_store.go and
 * controller/model/controller_setting_manager.go): one `global` object every controller starts
 * from, and per-controller overrides whose id is the controller's id. What a controller runs with
 * (its effective settings) is the global object with its override laid over it.
 */
import { fieldError, ZitiError } from '@edge/errors';

/** The id of the settings every controller inherits; it can be changed but never deleted. */
export const GLOBAL_ID = 'global';

/** OpenZiti's wildcard id for watching every controller's settings; never a settings object. */
export const ANY_ID = 'any';

/** `oidc` of controllerSettings. On an override, null inherits the global list. */
export interface OidcSettings {
  redirectUris: string[] | null;
  postLogoutUris: string[] | null;
}

export interface ControllerSetting {
  id: string;
  oidc: OidcSettings;
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** What a create or update supplies. */
export interface ControllerSettingInput {
  oidc: OidcSettings;
  tags: Record<string, unknown>;
}

/** The effective settings of one controller, and its own override (null when it has none). */
export interface ControllerSettingEffective {
  id: string;
  effective: { redirectUris: string[]; postLogoutUris: string[] };
  instance: OidcSettings | null;
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * OpenZiti refuses settings of its own reserved ids at creation ("cannot create settings for
 * controllers with id"): `global` exists already and `any` only addresses watchers.
 */
export function assertCreatable(controllerId: string): void {
  if (!controllerId) throw fieldError('controllerId', 'is required', controllerId);
  if (controllerId === GLOBAL_ID || controllerId === ANY_ID) {
    throw fieldError('controllerId', `${controllerId} is reserved and cannot be created`, controllerId);
  }
}

/** The global object cannot be removed, only updated (as OpenZiti's store answers). */
export function assertDeletable(id: string): void {
  if (id === GLOBAL_ID) throw new ZitiError('ENTITY_CAN_NOT_BE_DELETED', { causeMessage: 'the global controller settings cannot be removed, only updated' });
}

/** The fields an update writes; a key left out stays as it is. */
export interface ControllerSettingChanges {
  redirectUris?: string[] | null;
  postLogoutUris?: string[] | null;
  tags?: Record<string, unknown>;
}

/**
 * The fields of `input` an update mask names (`oidc.redirectUris`, `oidc.postLogoutUris`, `tags`).
 * The global object has nothing to inherit, so null there is empty.
 */
export function changesOf(id: string, input: ControllerSettingInput, mask: readonly string[]): ControllerSettingChanges {
  const list = (v: string[] | null) => (v === null && id === GLOBAL_ID ? [] : v);
  const out: ControllerSettingChanges = {};
  for (const name of mask) {
    if (name === 'oidc.redirectUris') out.redirectUris = list(input.oidc.redirectUris);
    else if (name === 'oidc.postLogoutUris') out.postLogoutUris = list(input.oidc.postLogoutUris);
    else if (name === 'tags') out.tags = input.tags;
    else throw fieldError(name, 'is not a writable field', name);
  }
  return out;
}

/**
 * Lays an override over the global settings. OpenZiti's MergeSettings replaces the whole `oidc`
 * object; here each list the override leaves unset (null) is inherited on its own, so an override
 * may change the redirect URIs and keep the global post-logout URIs. `instance` is the global
 * object itself when `id` is global, and undefined for a controller without an override.
 */
export function effectiveOf(id: string, global: ControllerSetting, instance: ControllerSetting | undefined): ControllerSettingEffective {
  const own = instance?.oidc;
  const updatedAt = instance && instance.updatedAt > global.updatedAt ? instance.updatedAt : global.updatedAt;
  return {
    id,
    effective: {
      redirectUris: own?.redirectUris ?? global.oidc.redirectUris ?? [],
      postLogoutUris: own?.postLogoutUris ?? global.oidc.postLogoutUris ?? [],
    },
    instance: own ?? null,
    tags: instance?.tags ?? {},
    createdAt: instance?.createdAt ?? global.createdAt,
    updatedAt,
  };
}
