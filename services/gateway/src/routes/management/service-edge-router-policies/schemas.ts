/**
 * zod schemas of the service edge router policy bodies, named as in management.yml.
 */
import { z } from '@edge/schemas';
import { optionalTags, roleList } from '../../shared/entity.js';

const roles = { serviceRoles: roleList, edgeRouterRoles: roleList, tags: optionalTags };
const semantic = z.enum(['AllOf', 'AnyOf']);

/** `serviceEdgeRouterPolicyCreate` (and `serviceEdgeRouterPolicyUpdate`). */
export const serviceEdgeRouterPolicyCreate = z.object({ ...roles, name: z.string().min(1).max(1000), semantic });

/** `serviceEdgeRouterPolicyPatch`. */
export const serviceEdgeRouterPolicyPatch = z.object({ ...roles, name: z.string().min(1).max(1000).optional(), semantic: semantic.optional() });
