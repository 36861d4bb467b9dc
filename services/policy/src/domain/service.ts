/**
 * Services: the fields OpenZiti's edge service has (controller/db/service_store.go), and the
 * rule that a service holds at most one config of each config type.
 */
import { fieldError } from '@edge/errors';
import { checkName, checkRoleAttributes, type Json, type Stored } from './entity.js';

/** The writable fields of a service. */
export interface ServiceInput {
  name: string;
  encryptionRequired: boolean;
  maxIdleTimeMillis: number;
  terminatorStrategy: string;
  roleAttributes: string[];
  configs: string[];
  tags: Json;
}

export interface Service extends ServiceInput, Stored {}

/** JSON name → input key; `encryptionRequired` is set at create only (read-only after). */
export const SERVICE_KEYS: Record<string, keyof ServiceInput> = {
  name: 'name', maxIdleTimeMillis: 'maxIdleTimeMillis', terminatorStrategy: 'terminatorStrategy',
  roleAttributes: 'roleAttributes', configs: 'configs', tags: 'tags',
};

/** OpenZiti's default strategy when none is given. */
export const DEFAULT_TERMINATOR_STRATEGY = 'smartrouting';

export function validateService(input: ServiceInput): void {
  checkName(input.name);
  checkRoleAttributes(input.roleAttributes);
  if (!Number.isSafeInteger(input.maxIdleTimeMillis) || input.maxIdleTimeMillis < 0) {
    throw fieldError('maxIdleTimeMillis', 'must be a non-negative integer', input.maxIdleTimeMillis);
  }
}

/** A config as the service rules see it. */
export interface ConfigRef {
  id: string;
  configTypeId: string;
  configTypeName: string;
}

/**
 * Checks the configs named by a service: each must exist, and no two may share a config type
 * (OpenZiti answers "duplicate configs named ... found for config type ...").
 */
export function checkServiceConfigs(ids: readonly string[], found: readonly ConfigRef[]): void {
  const byId = new Map(found.map((c) => [c.id, c]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw fieldError('configs', `no configs found with the given ids`, missing);
  const byType = new Map<string, string>();
  for (const id of new Set(ids)) {
    const c = byId.get(id)!;
    const other = byType.get(c.configTypeId);
    if (other) throw fieldError('configs', `duplicate configs named ${other} and ${id} found for config type ${c.configTypeName}; only one config of each type is allowed`, ids);
    byType.set(c.configTypeId, id);
  }
}
