/**
 * zod schemas of the config type bodies, named as in management.yml.
 */
import { z } from '@edge/schemas';
import { optionalTags } from '../../shared/entity.js';

const schema = z.record(z.string(), z.unknown());

/** `configTypeCreate`. */
export const configTypeCreate = z.object({
  name: z.string().min(1).max(1000),
  schema: schema.nullable().optional(),
  tags: optionalTags,
  target: z.enum(['service', 'router']).nullable().optional(),
});

/** `configTypeUpdate`. */
export const configTypeUpdate = z.object({ name: z.string().min(1).max(1000), schema: schema.nullable().optional(), tags: optionalTags });

/** `configTypePatch`. */
export const configTypePatch = z.object({ name: z.string().min(1).max(1000).optional(), schema: schema.nullable().optional(), tags: optionalTags });

export type ConfigTypeBody = z.infer<typeof configTypePatch> & { target?: string | null };
