/**
 * MFA enrollment rules (as controller/model/mfa_manager.go): one enrollment per identity, 20
 * single-use recovery codes of 6 base32 characters, an auth query while an API session has MFA
 * outstanding, and a bound on wrong codes per API session (OpenZiti has none).
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** An identity's MFA enrollment as stored, its secret still sealed. */
export interface Mfa {
  id: string;
  identityId: string;
  isVerified: boolean;
  secretSealed: string;
  recoveryCodesSealed: string;
  /** The last TOTP time step accepted; a code of that step or earlier is refused. */
  lastTotpStep: number | undefined;
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export const RECOVERY_CODE_COUNT = 20;
export const RECOVERY_CODE_LENGTH = 6;
/** Wrong codes an API session may send before it is ended. */
export const MAX_MFA_ATTEMPTS = 5;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Fresh recovery codes: 6 random base32 characters each (30 bits), distinct. */
export function newRecoveryCodes(): string[] {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) {
    const bytes = randomBytes(RECOVERY_CODE_LENGTH);
    codes.add([...bytes].map((b) => BASE32[b & 31]).join(''));
  }
  return [...codes];
}

/** True when `code` (any case) has the shape of a recovery code. */
export function isRecoveryCodeShape(code: string): boolean {
  return new RegExp(`^[${BASE32}]{${RECOVERY_CODE_LENGTH}}$`).test(code.toUpperCase());
}

/**
 * The key recovery codes are hashed with, derived from the KEK: 30-bit codes hashed without a
 * secret key would fall to brute force from a database dump.
 */
export function recoveryCodeKey(kek: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), 'edge auth mfa recovery codes', 32));
}

/** The stored form of a recovery code: HMAC-SHA256 under the recovery code key, bound to the enrollment. */
export function hashRecoveryCode(key: Buffer, mfaId: string, code: string): string {
  return createHmac('sha256', key).update(`${mfaId}:${code.toUpperCase()}`).digest('hex');
}

/** The label an authenticator app shows for the enrollment, and its issuer. */
export function totpLabels(identityName: string, advertisedAddress: string): { issuer: string; label: string } {
  const host = advertisedAddress.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return { issuer: host, label: identityName };
}

/** An outstanding authentication step (authQueryDetail). */
export interface AuthQuery {
  typeId: string;
  provider: string;
  format: string;
  httpMethod: string;
  httpUrl: string;
  minLength: number;
  maxLength: number;
  /** MFA: whether the identity has verified TOTP, so a client prompts for a code rather than enrollment. */
  isTotpEnrolled?: boolean;
}

/**
 * The Ziti MFA query, as OpenZiti sends it on a partial API session
 * (controller/env/appenv.go NewAuthQueryZitiMfa; tests/mfa_test.go pins these values).
 * alphaNumeric because a recovery code answers it too.
 */
export const ZITI_MFA_QUERY: AuthQuery = {
  typeId: 'MFA',
  provider: 'ziti',
  format: 'alphaNumeric',
  httpMethod: 'POST',
  httpUrl: './authenticate/mfa',
  minLength: 4,
  maxLength: 6,
};

/**
 * The queries an API session still has to answer; with `totpEnrolled` known, the MFA query says
 * it (SDKs prompt for a code when it is true and for enrollment otherwise).
 */
export function authQueries(session: { isMfaRequired: boolean; isMfaComplete: boolean }, totpEnrolled?: boolean): AuthQuery[] {
  if (!session.isMfaRequired || session.isMfaComplete) return [];
  return [totpEnrolled === undefined ? ZITI_MFA_QUERY : { ...ZITI_MFA_QUERY, isTotpEnrolled: totpEnrolled }];
}
