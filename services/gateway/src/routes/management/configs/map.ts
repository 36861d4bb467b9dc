/**
 * Configs: HTTP bodies ↔ proto messages.
 */
import { entityRef } from '@edge/envelope';
import type { policy } from '@edge/proto';
import { baseEntity, withFields, jsonObject } from '../../shared/entity.js';
import type { ConfigBody } from './schemas.js';

/** The fields PUT replaces (a config's type never changes). */
export const UPDATE_FIELDS = ['name', 'data', 'tags'];

export function toFields(b: ConfigBody): policy.ConfigFields {
  return { name: b.name ?? '', configTypeId: b.configTypeId ?? '', dataJson: JSON.stringify(b.data ?? {}), tagsJson: JSON.stringify(b.tags ?? {}) };
}

/** `configDetail`. */
export function renderConfig(c: policy.Config__Output) {
  return withFields(baseEntity(c, 'configs', ['services']), {
    name: c.name,
    configTypeId: c.configTypeId,
    configType: entityRef('config-types', 'config-types', c.configTypeId, c.configTypeName),
    data: jsonObject(c.dataJson),
  });
}
