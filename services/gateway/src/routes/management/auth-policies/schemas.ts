/**
 * zod schemas of the auth policy bodies, named as in management.yml.
 */
import { tags, z } from '@edge/schemas';

const count = z.number().int().min(0).max(1_000_000);

/** `authPolicyPrimaryCert`. */
const primaryCert = z.object({ allowed: z.boolean(), allowExpiredCerts: z.boolean() });
/** `authPolicyPrimaryExtJwt`. */
const primaryExtJwt = z.object({ allowed: z.boolean(), allowedSigners: z.array(z.string().max(100)).max(100) });
/** `authPolicyPrimaryUpdb`. */
const primaryUpdb = z.object({
  allowed: z.boolean(),
  minPasswordLength: count,
  requireMixedCase: z.boolean(),
  requireNumberChar: z.boolean(),
  requireSpecialChar: z.boolean(),
  maxAttempts: count,
  lockoutDurationMinutes: count,
});
/** `authPolicySecondary`. */
const secondary = z.object({ requireTotp: z.boolean(), requireExtJwtSigner: z.string().max(100).nullable().optional() });

/** `authPolicyCreate` (also `authPolicyUpdate`). */
export const authPolicyCreate = z.object({
  name: z.string().min(1).max(1000),
  primary: z.object({ cert: primaryCert, extJwt: primaryExtJwt, updb: primaryUpdb }),
  secondary,
  tags: tags.nullable().optional(),
});

const optional = <T extends z.ZodType>(t: T) => t.nullable().optional();
const partialOf = <S extends z.ZodRawShape>(shape: S) =>
  z.object(Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, optional(v as z.ZodType)]))) as unknown as
    z.ZodObject<{ [K in keyof S]: z.ZodOptional<z.ZodNullable<S[K]>> }>;

/** `authPolicyPatch`: every field optional; null means "leave it", except for the nullable `secondary.requireExtJwtSigner`, which it clears. */
export const authPolicyPatch = z.object({
  name: optional(z.string().min(1).max(1000)),
  primary: optional(z.object({
    cert: optional(partialOf(primaryCert.shape)),
    extJwt: optional(partialOf(primaryExtJwt.shape)),
    updb: optional(partialOf(primaryUpdb.shape)),
  })),
  secondary: optional(z.object({ requireTotp: optional(z.boolean()), requireExtJwtSigner: optional(z.string().max(100)) })),
  tags: tags.nullable().optional(),
});

export type AuthPolicyCreate = z.infer<typeof authPolicyCreate>;
export type AuthPolicyPatch = z.infer<typeof authPolicyPatch>;
