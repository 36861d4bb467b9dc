/**
 * zod schemas of the config bodies, named as in management.yml.
 */
import { z } from '@edge/schemas';
import { optionalTags } from '../../shared/entity.js';

const data = z.record(z.string(), z.unknown());

/** `configCreate`; an empty `configTypeId` is the policy service's to refuse (on `type`, as OpenZiti). */
export const configCreate = z.object({ name: z.string().min(1).max(1000), configTypeId: z.string().max(1000), data, tags: optionalTags });

/** `configUpdate`. */
export const configUpdate = z.object({ name: z.string().min(1).max(1000), data, tags: optionalTags });

/** `configPatch`. */
export const configPatch = z.object({ name: z.string().min(1).max(1000).optional(), data: data.optional(), tags: optionalTags });

export type ConfigBody = z.infer<typeof configPatch> & { configTypeId?: string };
