/**
 * Config types: HTTP bodies ↔ proto messages.
 */
import type { policy } from '@edge/proto';
import { baseEntity, withFields, jsonObject } from '../../shared/entity.js';
import type { ConfigTypeBody } from './schemas.js';

/** The fields PUT replaces (`target` is set at create). */
export const UPDATE_FIELDS = ['name', 'schema', 'tags'];

export function toFields(b: ConfigTypeBody): policy.ConfigTypeFields {
  return { name: b.name ?? '', schemaJson: JSON.stringify(b.schema ?? {}), tagsJson: JSON.stringify(b.tags ?? {}), target: b.target ?? '' };
}

/** `configTypeDetail`. */
export function renderConfigType(t: policy.ConfigType__Output) {
  return withFields(baseEntity(t, 'config-types', ['configs']), { name: t.name, schema: jsonObject(t.schemaJson), target: t.target });
}
