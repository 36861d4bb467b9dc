/**
 * zod schemas of the service bodies, named as in management.yml.
 */
import { attributes, z } from '@edge/schemas';
import { optionalTags } from '../../shared/entity.js';

const common = {
  configs: z.array(z.string().min(1).max(1000)).max(100).nullable().optional(),
  maxIdleTimeMillis: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  roleAttributes: attributes.optional(),
  tags: optionalTags,
  terminatorStrategy: z.string().max(100).optional(),
};

/** `serviceCreate`. */
export const serviceCreate = z.object({ ...common, name: z.string().min(1).max(1000), encryptionRequired: z.boolean() });

/** `serviceUpdate` (`encryptionRequired` is read-only after create and ignored). */
export const serviceUpdate = z.object({ ...common, name: z.string().min(1).max(1000), encryptionRequired: z.boolean().optional() });

/** `servicePatch`. */
export const servicePatch = z.object({ ...common, name: z.string().min(1).max(1000).optional(), encryptionRequired: z.boolean().optional() });

export type ServiceBody = z.infer<typeof servicePatch>;
