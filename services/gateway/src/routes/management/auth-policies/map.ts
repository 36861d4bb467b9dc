/**
 * HTTP ↔ auth policy proto messages.
 */
import { baseEntity, withFields } from '../../shared/entity.js';
import type { auth } from '@edge/proto';
import type { AuthPolicyCreate, AuthPolicyPatch } from './schemas.js';

/** The AuthPolicyFields of a create or replace body. */
export function toFields(b: AuthPolicyCreate): auth.AuthPolicyFields {
  return {
    name: b.name,
    cert: b.primary.cert,
    extJwt: b.primary.extJwt,
    updb: b.primary.updb,
    secondary: { requireTotp: b.secondary.requireTotp, requireExtJwtSigner: b.secondary.requireExtJwtSigner ?? undefined },
    tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

/** Keeps the fields of `patch` that are present and not null, over `base`. */
function merge<T extends object>(base: T, patch: { [K in keyof T]?: T[K] | null } | null | undefined): T {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch ?? {})) if (v !== null && v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * The fields after a PATCH: the stored ones with the present, non-null fields of the body; the
 * one nullable field, `secondary.requireExtJwtSigner`, is cleared by a null (or empty) value.
 */
export function patchedFields(current: auth.AuthPolicyFields__Output, b: AuthPolicyPatch): auth.AuthPolicyFields {
  const secondary = merge(current.secondary!, b.secondary);
  const signer = b.secondary && 'requireExtJwtSigner' in b.secondary ? b.secondary.requireExtJwtSigner : current.secondary!.requireExtJwtSigner;
  return {
    name: b.name ?? current.name,
    cert: merge(current.cert!, b.primary?.cert),
    extJwt: merge(current.extJwt!, b.primary?.extJwt),
    updb: merge(current.updb!, b.primary?.updb),
    secondary: { requireTotp: secondary.requireTotp, requireExtJwtSigner: signer || undefined },
    tagsJson: b.tags ? JSON.stringify(b.tags) : current.tagsJson,
  };
}

/** `authPolicyDetail`. */
export function renderAuthPolicy(p: auth.AuthPolicy__Output) {
  const f = p.fields!;
  return withFields(baseEntity({ ...p, tagsJson: f.tagsJson }, 'auth-policies'), {
    name: f.name,
    primary: { cert: f.cert, extJwt: f.extJwt, updb: f.updb },
    secondary: { requireTotp: f.secondary!.requireTotp, requireExtJwtSigner: f.secondary!.requireExtJwtSigner ?? null },
  });
}
