/**
 * zod schemas of the posture check bodies, named as in management.yml: one shape per `typeId`.
 */
import { attributes, z } from '@edge/schemas';
import { optionalTags } from '../../shared/entity.js';

const osType = z.enum(['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS']);
const strings = z.array(z.string().max(1000)).max(1000);

/** The fields of each type (`postureCheck<Type>Create`), all required as the specs say. */
const TYPE_FIELDS = {
  OS: { operatingSystems: z.array(z.object({ type: osType, versions: strings })).min(1).max(100) },
  PROCESS: { process: z.object({ osType, path: z.string().min(1).max(4096), hashes: strings.optional(), signerFingerprint: z.string().max(1000).optional() }) },
  PROCESS_MULTI: {
    semantic: z.enum(['AllOf', 'AnyOf']),
    processes: z.array(z.object({ osType, path: z.string().min(1).max(4096), hashes: strings.optional(), signerFingerprints: strings.optional() })).min(1).max(100),
  },
  DOMAIN: { domains: strings.min(1) },
  MAC: { macAddresses: strings.min(1) },
  MFA: {
    timeoutSeconds: z.number().int().min(-1).optional(),
    promptOnWake: z.boolean().optional(),
    promptOnUnlock: z.boolean().optional(),
    ignoreLegacyEndpoints: z.boolean().optional(),
  },
} as const;

export type PostureCheckTypeId = keyof typeof TYPE_FIELDS;

/** The type-specific field names of each type. */
export const TYPE_FIELD_NAMES: Record<PostureCheckTypeId, string[]> = Object.fromEntries(
  Object.entries(TYPE_FIELDS).map(([k, v]) => [k, Object.keys(v)]),
) as Record<PostureCheckTypeId, string[]>;

const common = { roleAttributes: attributes.optional(), tags: optionalTags };

function variants(partial: boolean, nameRequired: boolean) {
  const name = nameRequired ? z.string().min(1).max(1000) : z.string().min(1).max(1000).optional();
  const of = <K extends PostureCheckTypeId>(typeId: K) => {
    const own = z.object(TYPE_FIELDS[typeId]);
    return z.object({ ...common, name, typeId: z.literal(typeId), ...(partial ? own.partial() : own).shape });
  };
  return z.discriminatedUnion('typeId', [of('OS'), of('PROCESS'), of('PROCESS_MULTI'), of('DOMAIN'), of('MAC'), of('MFA')]);
}

/** `postureCheckCreate` with its discriminator. */
export const postureCheckCreate = variants(false, true);

/** `postureCheckUpdate`: every field again (the type cannot change). */
export const postureCheckUpdate = variants(false, true);

/** `postureCheckPatch`: `typeId` and any fields. */
export const postureCheckPatch = variants(true, false);

export type PostureCheckBody = z.infer<typeof postureCheckPatch>;
