/**
 * Reading an enrolling identity out of a verified external JWT (OpenZiti's
 * enrollment_mod_token.go): its externalId (the signer's claimsProperty), its name and its role
 * attributes (the signer's enroll*ClaimsSelector), and whether the signer and the auth policy
 * allow enrolling this way.
 */
import { ZitiError } from '@edge/errors';
import { allowsMethod, type AuthPolicy } from './auth-policy.js';
import { identityClaim, type ExtJwtSigner } from './ext-jwt-signer.js';

/** What a token enrolls: an identity named and attributed by its claims. */
export interface TokenIdentity {
  externalId: string;
  name: string;
  roleAttributes: string[];
}

/** INVALID_ENROLLMENT_NOT_ALLOWED: the signer or the auth policy does not allow this enrollment. */
export function enrollmentNotAllowed(why: string): ZitiError {
  return new ZitiError('INVALID_ENROLLMENT_NOT_ALLOWED', { causeMessage: why });
}

/** A claim by name, or by JSON pointer (`/a/b`) into nested claims. */
export function selectClaim(payload: Record<string, unknown>, selector: string): unknown {
  if (!selector.startsWith('/')) return payload[selector];
  let v: unknown = payload;
  for (const part of selector.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/**
 * The identity a token names; INVALID_ENROLLMENT_TOKEN without an id or name. The name comes from
 * enrollNameClaimsSelector (the id claim when empty), role attributes from
 * enrollAttributeClaimsSelector (a string or an array of strings; none when empty).
 */
export function tokenIdentity(signer: Pick<ExtJwtSigner, 'claimsProperty' | 'enrollNameClaimsSelector' | 'enrollAttributeClaimsSelector'>, payload: Record<string, unknown>): TokenIdentity {
  const externalId = identityClaim(signer, payload);
  const rawName = signer.enrollNameClaimsSelector ? selectClaim(payload, signer.enrollNameClaimsSelector) : externalId;
  const name = typeof rawName === 'string' ? rawName.trim() : '';
  if (!externalId || !name) throw new ZitiError('INVALID_ENROLLMENT_TOKEN', { causeMessage: 'the token names no identity id or name' });
  const rawAttrs = signer.enrollAttributeClaimsSelector ? selectClaim(payload, signer.enrollAttributeClaimsSelector) : undefined;
  const list = Array.isArray(rawAttrs) ? rawAttrs : rawAttrs === undefined ? [] : [rawAttrs];
  const roleAttributes = [...new Set(list.filter((a): a is string => typeof a === 'string' && a !== '' && !a.startsWith('#') && !a.startsWith('@')))];
  return { externalId, name, roleAttributes };
}

/** Whether the signer and the identity's auth policy allow a cert (with CSR) or token enrollment. */
export function checkTokenEnrollmentAllowed(signer: Pick<ExtJwtSigner, 'id' | 'enrollToCertEnabled' | 'enrollToTokenEnabled'>, policy: AuthPolicy, withCertificate: boolean): void {
  if (withCertificate) {
    if (!signer.enrollToCertEnabled) throw enrollmentNotAllowed('the signer does not allow enrolling to a certificate');
    if (!allowsMethod(policy, 'cert')) throw enrollmentNotAllowed('the auth policy does not allow certificates');
    return;
  }
  if (!signer.enrollToTokenEnabled) throw enrollmentNotAllowed('the signer does not allow enrolling to token authentication');
  const signers = policy.primary.extJwt.allowedSigners;
  if (!allowsMethod(policy, 'ext-jwt') || (signers.length > 0 && !signers.includes(signer.id))) {
    throw enrollmentNotAllowed('the auth policy does not allow this signer');
  }
}
