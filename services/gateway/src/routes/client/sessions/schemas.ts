/**
 * zod schemas of the session bodies, named as in client.yml.
 */
import { z } from '@edge/schemas';
import { optionalTags } from '../../shared/entity.js';

/** `sessionCreate`: `type` defaults to Dial, as OpenZiti's. */
export const sessionCreate = z.object({
  serviceId: z.string().min(1).max(1000),
  type: z.enum(['Dial', 'Bind']).optional(),
  tags: optionalTags,
});
