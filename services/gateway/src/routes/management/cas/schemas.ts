/**
 * zod schemas of the certificate authority bodies, named as in management.yml.
 */
import { attributes, tags, z } from '@edge/schemas';

const text = z.string().max(10_000);

/** `externalIdClaim`: every field required. */
export const externalIdClaim = z.object({
  location: z.enum(['COMMON_NAME', 'SAN_URI', 'SAN_EMAIL']),
  matcher: z.enum(['ALL', 'PREFIX', 'SUFFIX', 'SCHEME']),
  matcherCriteria: text,
  parser: z.enum(['NONE', 'SPLIT']),
  parserCriteria: text,
  index: z.number().int().min(0).max(1000),
});

/** `externalIdClaimPatch`. */
export const externalIdClaimPatch = z.object({
  location: externalIdClaim.shape.location.nullable().optional(),
  matcher: externalIdClaim.shape.matcher.nullable().optional(),
  matcherCriteria: text.nullable().optional(),
  parser: externalIdClaim.shape.parser.nullable().optional(),
  parserCriteria: text.nullable().optional(),
  index: externalIdClaim.shape.index.nullable().optional(),
});

const common = {
  name: z.string().min(1).max(1000),
  identityRoles: attributes,
  identityNameFormat: text.optional(),
  externalIdClaim: externalIdClaim.nullable().optional(),
  isAuthEnabled: z.boolean(),
  isAutoCaEnrollmentEnabled: z.boolean(),
  isOttCaEnrollmentEnabled: z.boolean(),
  tags: tags.nullable().optional(),
};

/** `caCreate`. */
export const caCreate = z.object({ ...common, certPem: z.string().min(1).max(100_000) });

/** `caUpdate`: identityNameFormat required too. */
export const caUpdate = z.object({ ...common, identityNameFormat: text });

/** `caPatch`. */
export const caPatch = z.object({
  name: common.name.nullable().optional(),
  identityRoles: attributes.optional(),
  identityNameFormat: text.nullable().optional(),
  externalIdClaim: externalIdClaimPatch.nullable().optional(),
  isAuthEnabled: z.boolean().nullable().optional(),
  isAutoCaEnrollmentEnabled: z.boolean().nullable().optional(),
  isOttCaEnrollmentEnabled: z.boolean().nullable().optional(),
  tags: tags.nullable().optional(),
});

export type CaBody = z.infer<typeof caPatch> & { certPem?: string };
