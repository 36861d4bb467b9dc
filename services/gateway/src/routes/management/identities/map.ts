/**
 * HTTP bodies → identity proto messages.
 */
import type { identity } from '@edge/proto';
import type { IdentityCreate, IdentityPatch } from './schemas.js';

/** Every writable field, in the names the identity service's update mask uses. */
export const ALL_FIELDS = [
  'name', 'type', 'isAdmin', 'roleAttributes', 'tags', 'appData', 'defaultHostingCost',
  'defaultHostingPrecedence', 'serviceHostingCosts', 'serviceHostingPrecedences', 'externalId',
  'authPolicyId', 'permissions',
];

/** The IdentityFields of a create, replace or patch body (absent and null both mean "empty"). */
export function toFields(b: IdentityPatch): identity.IdentityFields {
  return {
    name: b.name ?? '',
    typeId: b.type ?? '',
    isAdmin: b.isAdmin ?? false,
    roleAttributes: b.roleAttributes ?? [],
    tagsJson: JSON.stringify(b.tags ?? {}),
    appDataJson: JSON.stringify(b.appData ?? {}),
    defaultHostingCost: b.defaultHostingCost ?? 0,
    defaultHostingPrecedence: b.defaultHostingPrecedence ?? 'default',
    serviceHostingCosts: b.serviceHostingCosts ?? {},
    serviceHostingPrecedences: b.serviceHostingPrecedences ?? {},
    externalId: b.externalId ?? undefined,
    authPolicyId: b.authPolicyId ?? '',
    permissions: b.permissions ?? [],
  };
}

/**
 * The fields a PATCH changes: those present in the body. A null name, type or isAdmin means
 * "leave it" (they cannot be empty); a null map, list or externalId clears it.
 */
export function patchMask(body: Record<string, unknown>): string[] {
  return ALL_FIELDS.filter((f) => f in body && !(body[f] === null && (f === 'name' || f === 'type' || f === 'isAdmin')));
}

