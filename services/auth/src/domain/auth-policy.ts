/**
 * Auth policy rules (as controller/model/auth_policy_manager.go and the updb auth module):
 * which primary methods an identity may use, when consecutive wrong passwords lock it, and
 * whether a login must complete TOTP.
 */
import { ZitiError, fieldError } from '@edge/errors';

/** The policy every identity has unless it names another; it cannot be deleted. */
export const DEFAULT_AUTH_POLICY_ID = 'default';
/** The shortest password a policy may allow (OpenZiti's minimum as well). */
export const MIN_PASSWORD_LENGTH = 5;
const MAX_PASSWORD_LENGTH = 100;

/** The writable fields of an auth policy, shaped as the specs' authPolicyCreate. */
export interface AuthPolicyInput {
  name: string;
  primary: {
    cert: { allowed: boolean; allowExpiredCerts: boolean };
    extJwt: { allowed: boolean; allowedSigners: string[] };
    updb: {
      allowed: boolean;
      minPasswordLength: number;
      requireMixedCase: boolean;
      requireNumberChar: boolean;
      requireSpecialChar: boolean;
      /** Consecutive wrong passwords that lock the identity; 0: unlimited. */
      maxAttempts: number;
      /** How long a lockout lasts; 0: until an admin enables the identity. */
      lockoutDurationMinutes: number;
    };
  };
  secondary: { requireTotp: boolean; requireExtJwtSigner: string | null };
  tags: Record<string, unknown>;
}

/** A stored auth policy. */
export interface AuthPolicy extends AuthPolicyInput {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A primary authentication method as `POST /authenticate?method=` names it. */
export type PrimaryMethod = 'password' | 'cert' | 'ext-jwt';

/** Validates what the HTTP schema cannot know; throws the first breach. */
export function validateAuthPolicy(p: AuthPolicyInput): void {
  if (!p.name.trim()) throw fieldError('name', 'must not be empty', p.name);
  const { minPasswordLength } = p.primary.updb;
  if (minPasswordLength < MIN_PASSWORD_LENGTH || minPasswordLength > MAX_PASSWORD_LENGTH) {
    throw fieldError('primary.updb.minPasswordLength', `must be from ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH}`, minPasswordLength);
  }
}

/**
 * The external JWT signers a policy names, in the order and under the field names OpenZiti
 * checks and reports them (controller/model/auth_policy_manager.go ApplyCreate).
 */
export function namedSigners(p: AuthPolicyInput): Array<{ field: string; id: string }> {
  const named = p.secondary.requireExtJwtSigner ? [{ field: 'secondary.requiredExtJwtSigner', id: p.secondary.requireExtJwtSigner }] : [];
  p.primary.extJwt.allowedSigners.forEach((id, i) => named.push({ field: `primary.extJwt.allowedExtJwtSigners[${i}]`, id }));
  return named;
}

/** NOT_FOUND (404) naming the unknown signer, as auth_policy_manager.go verifyExtJwt answers it. */
export function unknownSigner(field: string, id: string): ZitiError {
  return new ZitiError('NOT_FOUND', { cause: { field, reason: 'not found', value: id }, causeMessage: `${field}: not found` });
}

/**
 * The default policy is permanent: OpenZiti answers its delete 409, since identities always
 * reference it; a policy identities name cannot be deleted either.
 */
export function checkDeletable(id: string, identitiesUsing: number): void {
  if (id === DEFAULT_AUTH_POLICY_ID) {
    throw new ZitiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { causeMessage: 'the default auth policy cannot be deleted' });
  }
  if (identitiesUsing > 0) {
    throw new ZitiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
      causeMessage: `auth policy ${id} is used by ${identitiesUsing} identit${identitiesUsing === 1 ? 'y' : 'ies'}`,
    });
  }
}

/** True when the policy lets an identity authenticate with `method`. */
export function allowsMethod(p: AuthPolicy, method: PrimaryMethod): boolean {
  switch (method) {
    case 'password': return p.primary.updb.allowed;
    case 'cert': return p.primary.cert.allowed;
    case 'ext-jwt': return p.primary.extJwt.allowed;
  }
}

/** True when a login under this policy must complete MFA, enrolled or not. */
export function requiresTotp(p: AuthPolicy): boolean {
  return p.secondary.requireTotp;
}

/**
 * Checks a new password against the policy's updb rules; the reason names the rule broken.
 * The password itself never travels in the error.
 */
export function checkPassword(p: AuthPolicy, password: string, field = 'password'): void {
  const rules = p.primary.updb;
  const fail = (reason: string): never => {
    throw fieldError(field, reason, '');
  };
  if (password.length < rules.minPasswordLength) fail(`must be at least ${rules.minPasswordLength} characters`);
  if (password.length > 100) fail('must be at most 100 characters');
  if (rules.requireMixedCase && !(/[a-z]/.test(password) && /[A-Z]/.test(password))) fail('must mix upper and lower case letters');
  if (rules.requireNumberChar && !/[0-9]/.test(password)) fail('must contain a number');
  if (rules.requireSpecialChar && !/[^A-Za-z0-9]/.test(password)) fail('must contain a special character');
}
