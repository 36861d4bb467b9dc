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

/** A config as the rules of the entities holding it see it. */
export interface ConfigRef {
  id: string;
  name: string;
  configTypeId: string;
  configTypeName: string;
  target: ConfigTypeTarget;
}

/** What holds configs: a service, a router, or an identity's own configs for services. */
export type ConfigHolder = 'service' | 'router' | 'identityServiceConfigs';

/** Per holder: the target its configs' types must have, the field errors name, one config per type. */
const HOLDERS: Record<ConfigHolder, { target: ConfigTypeTarget; field: string; onePerType: boolean }> = {
  service: { target: 'service', field: 'configs', onePerType: true },
  router: { target: 'router', field: 'configs', onePerType: true },
  // An identity's override replaces the earlier one of the same type (identity_manager.go).
  identityServiceConfigs: { target: 'service', field: 'serviceConfigs', onePerType: false },
};

/** Reads a holder name; anything else is a caller bug, answered as a validation error. */
export function parseHolder(raw: string): ConfigHolder {
  if (Object.hasOwn(HOLDERS, raw)) return raw as ConfigHolder;
  throw fieldError('holder', 'must be service, router or identityServiceConfigs', raw);
}

/**
 * Checks the configs a holder names, in the order given, as OpenZiti's validateConfigs
 * (controller/model/edge_service_model.go) and validateRouterConfigs (router_model.go): each must
 * exist, its type must target the holder, and a service or router holds one config of a type
 * (the same config twice included). A 400 on the holder's field.
 */
export function checkConfigs(holder: ConfigHolder, ids: readonly string[], found: readonly ConfigRef[]): void {
  const { target, field, onePerType } = HOLDERS[holder];
  const byId = new Map(found.map((c) => [c.id, c]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw fieldError(field, 'no configs found with the given ids', missing);
  const byType = new Map<string, ConfigRef>();
  for (const id of ids) {
    const c = byId.get(id)!;
    if (c.target !== target) throw fieldError(field, `config ${c.name} has config type ${c.configTypeName} which does not target ${target}s`, ids);
    const other = byType.get(c.configTypeId);
    if (onePerType && other) {
      throw fieldError(field, `duplicate configs named ${other.name} and ${c.name} found for config type ${c.configTypeName}. Only one config of a given type is allowed per ${target}`, ids);
    }
    byType.set(c.configTypeId, c);
  }
}
