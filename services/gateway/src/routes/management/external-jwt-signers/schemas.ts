/**
 * zod schemas of the external JWT signer bodies, named as in the specs.
 */
import { tags, z } from '@edge/schemas';

const text = z.string().max(10_000);
const fields = {
  audience: text.nullable().optional(),
  certPem: z.string().max(100_000).nullable().optional(),
  claimsProperty: text.nullable().optional(),
  clientId: text.nullable().optional(),
  enabled: z.boolean().optional(),
  enrollAttributeClaimsSelector: text.optional(),
  enrollAuthPolicyId: text.optional(),
  enrollNameClaimsSelector: text.optional(),
  enrollToCertEnabled: z.boolean().optional(),
  enrollToTokenEnabled: z.boolean().optional(),
  externalAuthUrl: text.nullable().optional(),
  issuer: text.optional(),
  jwksEndpoint: text.nullable().optional(),
  kid: text.nullable().optional(),
  name: z.string().min(1).max(1000).optional(),
  scopes: z.array(text).max(100).nullable().optional(),
  tags: tags.nullable().optional(),
  targetToken: z.enum(['ACCESS', 'ID']).nullable().optional(),
  useExternalId: z.boolean().nullable().optional(),
};

/** `externalJwtSignerCreate` and `externalJwtSignerUpdate`: name, enabled, issuer, audience required. */
export const extJwtSignerCreate = z.object({ ...fields, name: z.string().min(1).max(1000), enabled: z.boolean(), issuer: text.min(1), audience: text.min(1) });

/** `externalJwtSignerPatch`. */
export const extJwtSignerPatch = z.object(fields);

export type ExtJwtSignerBody = z.infer<typeof extJwtSignerPatch>;
