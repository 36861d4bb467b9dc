/**
 * zod schemas of the controller settings bodies, named as in management.yml.
 */
import { z } from '@edge/schemas';
import { optionalTags } from '../../shared/entity.js';

/**
 * A URI with a scheme. Not parsed as a URL: OpenZiti's own defaults use custom schemes
 * (`openziti://auth/callback`) and `*` for any port (`https://localhost:*` and a path).
 */
const uri = z.string().min(1).max(2048).regex(/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/, 'must be an absolute URI with a scheme and no spaces');

/** null (or absent) leaves the list to the global settings. */
const uris = z.array(uri).max(1000).nullable().optional();

/** `controllerSettings.oidc`. */
const oidc = z.object({ redirectUris: uris, postLogoutUris: uris }).nullable().optional();

/** `controllerSettingUpdate` (and `controllerSettingPatch`: every field is optional already). */
export const controllerSettingUpdate = z.object({ oidc, tags: optionalTags });

/** `controllerSettingCreate`: the settings plus the id of the controller they override. */
export const controllerSettingCreate = controllerSettingUpdate.extend({ controllerId: z.string().min(1).max(1000) });

export type ControllerSettingBody = z.infer<typeof controllerSettingUpdate>;
