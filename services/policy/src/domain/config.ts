/**
 * Config types and configs: a config's data must satisfy its type's JSON schema
 * (controller/model/config_model.go in OpenZiti); a config's type never changes.
 */
import { fieldError } from '@edge/errors';
import { checkName, type Json, type Stored } from './entity.js';
import { checkSchema, validateConfigData } from './json-schema.js';

export const CONFIG_TYPE_TARGETS = ['service', 'router'] as const;
export type ConfigTypeTarget = (typeof CONFIG_TYPE_TARGETS)[number];

/** The writable fields of a config type. */
export interface ConfigTypeInput {
  name: string;
  schema: Json;
  target: ConfigTypeTarget;
  tags: Json;
}

export interface ConfigType extends ConfigTypeInput, Stored {}

/** JSON name → input key, for update masks. */
export const CONFIG_TYPE_KEYS: Record<string, keyof ConfigTypeInput> = { name: 'name', schema: 'schema', tags: 'tags', target: 'target' };

/** Reads a target; empty means `service`, as OpenZiti defaults it. */
export function parseTarget(raw: string): ConfigTypeTarget {
  if (raw === '') return 'service';
  if ((CONFIG_TYPE_TARGETS as readonly string[]).includes(raw)) return raw as ConfigTypeTarget;
  throw fieldError('target', 'must be service or router', raw);
}

export function validateConfigType(input: ConfigTypeInput): void {
  checkName(input.name);
  checkSchema(input.schema);
}

/** The writable fields of a config (`configTypeId` only at create). */
export interface ConfigInput {
  name: string;
  configTypeId: string;
  data: Json;
  tags: Json;
}

export interface Config extends ConfigInput, Stored {
  configTypeName: string;
}

export const CONFIG_KEYS: Record<string, keyof ConfigInput> = { name: 'name', data: 'data', tags: 'tags' };

/** Validates a config against its type; `data` is required (as OpenZiti's config store). */
export function validateConfig(input: ConfigInput, type: Pick<ConfigType, 'schema'>): void {
  checkName(input.name);
  validateConfigData(type.schema, input.data);
}
