/**
 * zod schemas of the service policy bodies, named as in management.yml.
 */
import { z } from '@edge/schemas';
import { optionalTags, roleList } from '../../shared/entity.js';

const roles = { identityRoles: roleList, serviceRoles: roleList, postureCheckRoles: roleList, tags: optionalTags };
const type = z.enum(['Dial', 'Bind']);
const semantic = z.enum(['AllOf', 'AnyOf']);

/** `servicePolicyCreate` (and `servicePolicyUpdate`, which has the same required fields). */
export const servicePolicyCreate = z.object({ ...roles, name: z.string().min(1).max(1000), type, semantic });

/** `servicePolicyPatch`. */
export const servicePolicyPatch = z.object({ ...roles, name: z.string().min(1).max(1000).optional(), type: type.optional(), semantic: semantic.optional() });
