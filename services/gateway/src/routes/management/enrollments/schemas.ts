/**
 * zod schemas of the enrollment bodies, named as in management.yml.
 */
import { z } from '@edge/schemas';

/** `enrollmentCreate`. */
export const enrollmentCreate = z.object({
  method: z.enum(['ott', 'ottca', 'updb']),
  identityId: z.string().min(1).max(100),
  expiresAt: z.string().datetime({ offset: true }),
  caId: z.string().max(100).nullable().optional(),
  username: z.string().max(100).nullable().optional(),
});

/** `enrollmentRefresh`. */
export const enrollmentRefresh = z.object({
  expiresAt: z.string().datetime({ offset: true }),
});
