/**
 * zod schemas of the router bodies, named as in management.yml (edgeRouterCreate/Update/Patch,
 * routerCreate/Update/Patch).
 */
import { attributes, tags, terminatorCost, z } from '@edge/schemas';

const listeners = z.record(z.string(), z.array(z.string())).nullable().optional();
const configs = z.array(z.string()).nullable().optional();

const transitCommon = {
  configs,
  cost: terminatorCost.nullable().optional(),
  ctrlChanListeners: listeners,
  disabled: z.boolean().nullable().optional(),
  noTraversal: z.boolean().nullable().optional(),
  tags: tags.nullable().optional(),
};

const edgeCommon = {
  ...transitCommon,
  appData: tags.nullable().optional(),
  isTunnelerEnabled: z.boolean().nullable().optional(),
  roleAttributes: attributes.optional(),
};

const name = z.string().min(1).max(1000);

/** `routerCreate` and `routerUpdate` (name required). */
export const routerCreate = z.object({ ...transitCommon, name });
/** `routerPatch`. */
export const routerPatch = z.object({ ...transitCommon, name: name.nullable().optional() });
/** `edgeRouterCreate` and `edgeRouterUpdate` (name required). */
export const edgeRouterCreate = z.object({ ...edgeCommon, name });
/** `edgeRouterPatch`. */
export const edgeRouterPatch = z.object({ ...edgeCommon, name: name.nullable().optional() });

export type RouterBody = z.infer<typeof edgeRouterPatch>;
