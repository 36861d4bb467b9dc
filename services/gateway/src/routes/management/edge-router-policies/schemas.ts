/**
 * zod schemas of the edge router policy bodies, named as in management.yml.
 */
import { z } from '@edge/schemas';
import { optionalTags, roleList } from '../../shared/entity.js';

const roles = { identityRoles: roleList, edgeRouterRoles: roleList, tags: optionalTags };
const semantic = z.enum(['AllOf', 'AnyOf']);

/** `edgeRouterPolicyCreate` (and `edgeRouterPolicyUpdate`). */
export const edgeRouterPolicyCreate = z.object({ ...roles, name: z.string().min(1).max(1000), semantic });

/** `edgeRouterPolicyPatch`. */
export const edgeRouterPolicyPatch = z.object({ ...roles, name: z.string().min(1).max(1000).optional(), semantic: semantic.optional() });
