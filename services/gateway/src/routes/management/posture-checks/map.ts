/**
 * Posture checks: HTTP bodies ↔ proto messages.
 */
import type { policy } from '@edge/proto';
import { baseEntity, withFields, jsonObject } from '../../shared/entity.js';
import { TYPE_FIELD_NAMES, type PostureCheckBody, type PostureCheckTypeId } from './schemas.js';

/** The entity fields every type has. */
export const COMMON_FIELDS = ['name', 'roleAttributes', 'tags', 'typeId'];

/** Every writable field of a type (what PUT replaces). */
export function fieldsOf(typeId: PostureCheckTypeId): string[] {
  return [...COMMON_FIELDS, ...TYPE_FIELD_NAMES[typeId]];
}

export function toFields(b: PostureCheckBody): policy.PostureCheckFields {
  const data: Record<string, unknown> = {};
  for (const f of TYPE_FIELD_NAMES[b.typeId]) {
    const v = (b as Record<string, unknown>)[f];
    if (v !== undefined) data[f] = v;
  }
  return { name: b.name ?? '', typeId: b.typeId, roleAttributes: b.roleAttributes ?? [], dataJson: JSON.stringify(data), tagsJson: JSON.stringify(b.tags ?? {}) };
}

/** `postureCheckDetail` of its type: the common fields and the type's own. */
export function renderPostureCheck(c: policy.PostureCheck__Output) {
  return withFields(baseEntity(c, 'posture-checks'), {
    name: c.name,
    typeId: c.typeId,
    version: c.version,
    roleAttributes: c.roleAttributes,
    ...jsonObject(c.dataJson),
  });
}
