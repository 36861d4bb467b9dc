/**
 * zod schemas of the identity bodies, named as in management.yml.
 */
import { attributes, tags, terminatorCost, terminatorPrecedence, z } from '@edge/schemas';
import { PERMISSIONS } from '../../../http/permissions.js';

const identityType = z.enum(['User', 'Device', 'Service', 'Router', 'Default']);
/** Only the permissions OpenZiti knows (controller/model/identity_manager.go validateIdentityPermissions). */
const permissions = z.array(z.string().max(100)).max(200).superRefine((list, ctx) => {
  const invalid = list.find((p) => !PERMISSIONS.has(p));
  if (invalid !== undefined) ctx.addIssue({ code: 'custom', message: `invalid permissions '${invalid}'` });
});

const common = {
  appData: tags.nullable().optional(),
  authPolicyId: z.string().max(100).nullable().optional(),
  defaultHostingCost: terminatorCost.optional(),
  defaultHostingPrecedence: terminatorPrecedence.optional(),
  externalId: z.string().max(1000).nullable().optional(),
  permissions: permissions.nullable().optional(),
  roleAttributes: attributes.optional(),
  serviceHostingCosts: z.record(z.string(), terminatorCost).nullable().optional(),
  serviceHostingPrecedences: z.record(z.string(), terminatorPrecedence).nullable().optional(),
  tags: tags.nullable().optional(),
};

/** `identityCreate`. */
export const identityCreate = z.object({
  ...common,
  name: z.string().min(1).max(1000),
  type: identityType,
  isAdmin: z.boolean(),
  enrollment: z.object({ ott: z.boolean().optional(), ottca: z.string().min(1).max(100).optional(), updb: z.string().min(1).max(100).optional() }).nullable().optional(),
});

/** `identityUpdate` (PUT: name, type and isAdmin required). */
export const identityUpdate = z.object({
  ...common,
  name: z.string().min(1).max(1000),
  type: identityType,
  isAdmin: z.boolean(),
});

/** `identityPatch`: every field optional. */
export const identityPatch = z.object({
  ...common,
  name: z.string().min(1).max(1000).nullable().optional(),
  type: identityType.optional(),
  isAdmin: z.boolean().nullable().optional(),
});

export type IdentityCreate = z.infer<typeof identityCreate>;
export type IdentityPatch = z.infer<typeof identityPatch>;
