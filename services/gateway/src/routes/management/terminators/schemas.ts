/**
 * zod schemas of the terminator bodies, named as in management.yml.
 */
import { terminatorCost, terminatorPrecedence, z } from '@edge/schemas';
import { optionalTags } from '../../shared/entity.js';

const ref = z.string().min(1).max(1000);
/** `format: byte`: base64 text. */
const base64 = z.string().max(10_000).regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be base64');

/** `terminatorUpdate`. */
export const terminatorUpdate = z.object({
  service: ref, router: ref, binding: ref, address: z.string().min(1).max(4096),
  cost: terminatorCost.optional(), precedence: terminatorPrecedence.optional(), tags: optionalTags,
});

/** `terminatorCreate`: the update fields plus the hosting identity and its secret. */
export const terminatorCreate = terminatorUpdate.extend({ identity: z.string().max(1000).optional(), identitySecret: base64.optional() });

/** `terminatorPatch`. */
export const terminatorPatch = terminatorUpdate.partial();

export type TerminatorBody = z.infer<typeof terminatorPatch> & { identity?: string; identitySecret?: string };
