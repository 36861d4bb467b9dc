/**
 * Services: the fields OpenZiti's edge service has (controller/db/service_store.go). The configs
 * a service may hold are checked by checkConfigs (config.ts).
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
