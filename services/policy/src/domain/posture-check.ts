/**
 * Posture checks (controller/db/posture_check_*.go in OpenZiti): a name, role attributes, a
 * type and that type's fields; `version` grows with every change.
 */
import { fieldError } from '@edge/errors';
import { checkName, checkRoleAttributes, type Json, type Stored } from './entity.js';

export const POSTURE_CHECK_TYPES = ['OS', 'PROCESS', 'PROCESS_MULTI', 'DOMAIN', 'MAC', 'MFA'] as const;
export type PostureCheckTypeId = (typeof POSTURE_CHECK_TYPES)[number];

/** The fields each type has, by API name, and which are required. */
const TYPE_FIELDS: Record<PostureCheckTypeId, { fields: string[]; required: string[] }> = {
  OS: { fields: ['operatingSystems'], required: ['operatingSystems'] },
  PROCESS: { fields: ['process'], required: ['process'] },
  PROCESS_MULTI: { fields: ['processes', 'semantic'], required: ['processes', 'semantic'] },
  DOMAIN: { fields: ['domains'], required: ['domains'] },
  MAC: { fields: ['macAddresses'], required: ['macAddresses'] },
  MFA: { fields: ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'], required: [] },
};

/** OpenZiti's MFA defaults: no timeout, no prompts, legacy endpoints not ignored. */
const MFA_DEFAULTS = { timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false };

export interface PostureCheckInput {
  name: string;
  typeId: PostureCheckTypeId;
  roleAttributes: string[];
  /** The type's fields. */
  data: Json;
  tags: Json;
}

export interface PostureCheck extends PostureCheckInput, Stored {
  version: number;
}

export const POSTURE_CHECK_KEYS: Record<string, keyof PostureCheckInput> = {
  name: 'name', roleAttributes: 'roleAttributes', tags: 'tags', typeId: 'typeId',
};

/** Splits an update mask into the entity fields and the type's own fields. */
export function splitMask(typeId: PostureCheckTypeId, mask: readonly string[]): { entityMask: string[]; dataFields: string[] } {
  const own = TYPE_FIELDS[typeId].fields;
  return { entityMask: mask.filter((m) => !own.includes(m)), dataFields: mask.filter((m) => own.includes(m)) };
}

/** The type fields after an update: those named take the new values. */
export function mergeData(current: Json, given: Json, fields: readonly string[]): Json {
  const out = { ...current };
  for (const f of fields) {
    if (given[f] === undefined) delete out[f];
    else out[f] = given[f];
  }
  return out;
}

export function parsePostureCheckType(raw: string): PostureCheckTypeId {
  if ((POSTURE_CHECK_TYPES as readonly string[]).includes(raw)) return raw as PostureCheckTypeId;
  throw fieldError('typeId', `must be one of ${POSTURE_CHECK_TYPES.join(', ')}`, raw);
}

/** Keeps the fields of the type (with MFA defaults filled in); a missing required one is a 400. */
export function normalizeData(typeId: PostureCheckTypeId, data: Json): Json {
  const { fields, required } = TYPE_FIELDS[typeId];
  for (const f of required) if (data[f] === undefined || data[f] === null) throw fieldError(f, 'is required', null);
  const out: Json = typeId === 'MFA' ? { ...MFA_DEFAULTS } : {};
  for (const f of fields) if (data[f] !== undefined && data[f] !== null) out[f] = data[f];
  return out;
}

export function validatePostureCheck(input: PostureCheckInput): void {
  checkName(input.name);
  checkRoleAttributes(input.roleAttributes);
}

/** The type of a check never changes (OpenZiti answers a type change with a 400). */
export function checkTypeUnchanged(current: PostureCheck, next: PostureCheckInput): void {
  if (current.typeId !== next.typeId) throw fieldError('typeId', 'the type of a posture check cannot be changed', next.typeId);
}
