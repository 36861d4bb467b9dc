/**
 * zod schemas of the authenticator bodies, named as in the specs.
 */
import { tags, z } from '@edge/schemas';

const username = z.string().min(4).max(100);
const password = z.string().min(5).max(100);

/** `authenticatorCreate`. */
export const authenticatorCreate = z.object({
  method: z.string().min(1),
  identityId: z.string().min(1),
  username: username.optional(),
  password: password.optional(),
  certPem: z.string().max(100_000).optional(),
  tags: tags.nullable().optional(),
});

/** `authenticatorUpdate` (PUT): username and password required. */
export const authenticatorUpdate = z.object({ username, password, tags: tags.nullable().optional() });

/** `authenticatorPatch`. */
export const authenticatorPatch = z.object({ username: username.nullable().optional(), password: password.nullable().optional(), tags: tags.nullable().optional() });

/** `authenticatorUpdateWithCurrent`: the caller's own, with its current password. */
export const authenticatorUpdateWithCurrent = authenticatorUpdate.extend({ currentPassword: password });

/** `authenticatorPatchWithCurrent`. */
export const authenticatorPatchWithCurrent = authenticatorPatch.extend({ currentPassword: password });

export type AuthenticatorChangeBody = z.infer<typeof authenticatorPatch>;

/** `reEnroll`: when the new enrollment expires. */
export const reEnroll = z.object({ expiresAt: z.string().datetime({ offset: true }) });

/** `requestExtendAuthenticator`. */
export const requestExtendAuthenticator = z.object({ rollKeys: z.boolean().nullable().optional() });
