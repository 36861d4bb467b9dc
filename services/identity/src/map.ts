/**
 * proto ↔ domain for identities.
 */
import { fieldError } from '@edge/errors';
import type { identity as pb } from '@edge/proto';
import type { Identity, IdentityInput, Json, Precedence } from './domain/identity.js';
import { DEFAULT_AUTH_POLICY_ID, isDisabled, normalizeTypeId } from './domain/identity.js';

/** A JSON object field; a field error when it is not one. */
export function parseJson(field: string, text: string | undefined): Json {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    if (v === null) return {};
    if (typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Json;
  } catch {
    throw fieldError(field, 'must be a JSON object', text);
  }
}

/** The domain input of an IdentityFields message. */
export function fieldsToInput(f: pb.IdentityFields__Output | null | undefined): IdentityInput {
  const x = f ?? ({} as pb.IdentityFields__Output);
  return {
    name: x.name ?? '',
    typeId: normalizeTypeId(x.typeId ?? ''),
    isAdmin: x.isAdmin ?? false,
    roleAttributes: x.roleAttributes ?? [],
    tags: parseJson('tags', x.tagsJson),
    appData: parseJson('appData', x.appDataJson),
    defaultHostingCost: x.defaultHostingCost ?? 0,
    defaultHostingPrecedence: (x.defaultHostingPrecedence || 'default') as Precedence,
    serviceHostingCosts: x.serviceHostingCosts ?? {},
    serviceHostingPrecedences: (x.serviceHostingPrecedences ?? {}) as Record<string, Precedence>,
    externalId: x.externalId ?? null,
    authPolicyId: x.authPolicyId || DEFAULT_AUTH_POLICY_ID,
    permissions: x.permissions ?? [],
  };
}

/** The proto message of a stored identity; a lockout past its end shows as enabled. */
export function identityToProto(i: Identity): pb.Identity {
  const disabled = isDisabled(i);
  return {
    id: i.id,
    name: i.name,
    typeId: i.typeId,
    isAdmin: i.isAdmin,
    isDefaultAdmin: i.isDefaultAdmin,
    roleAttributes: i.roleAttributes,
    tagsJson: JSON.stringify(i.tags),
    appDataJson: JSON.stringify(i.appData),
    defaultHostingCost: i.defaultHostingCost,
    defaultHostingPrecedence: i.defaultHostingPrecedence,
    serviceHostingCosts: i.serviceHostingCosts,
    serviceHostingPrecedences: i.serviceHostingPrecedences,
    externalId: i.externalId ?? undefined,
    authPolicyId: i.authPolicyId,
    disabled,
    disabledAt: disabled ? i.disabledAt?.toISOString() : undefined,
    disabledUntil: disabled ? i.disabledUntil?.toISOString() : undefined,
    envInfoJson: JSON.stringify(i.envInfo),
    sdkInfoJson: JSON.stringify(i.sdkInfo),
    permissions: i.permissions,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}


/** An identity type row as the store reads it. */
export interface IdentityTypeRecord {
  id: string;
  name: string;
  tags: Json;
  created_at: Date;
  updated_at: Date;
}

/** The proto message of an identity type. */
export function identityTypeToProto(t: IdentityTypeRecord): pb.IdentityType {
  return { id: t.id, name: t.name, tagsJson: JSON.stringify(t.tags ?? {}), createdAt: t.created_at.toISOString(), updatedAt: t.updated_at.toISOString() };
}
