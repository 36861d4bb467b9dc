/**
 * Authenticators: the credentials an identity proves itself with (as OpenZiti's
 * controller/model/authenticator_*.go: updb = username/password, cert = client certificate).
 */

import { createHash, X509Certificate } from 'node:crypto';
import { ZitiError } from '@edge/errors';

/** The authenticator methods stored; ext-jwt authenticates against signers, not a stored row. */
export type AuthenticatorMethod = 'updb' | 'cert';

/** An authenticator as stored. updb rows carry username and hash, cert rows fingerprint and PEM. */
export interface Authenticator {
  id: string;
  identityId: string;
  method: AuthenticatorMethod;
  username?: string;
  passwordHash?: string;
  fingerprint?: string;
  certPem?: string;
  /** An administrator's request that the certificate be extended early (and the key rolled). */
  extendRequest?: { at: Date; rollKeys: boolean };
  /** A certificate the controller's own CA issued, which its holder may extend (cert only). */
  isIssuedByNetwork?: boolean;
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** How an identity can authenticate, as the identity detail's `authenticators` and flags show it. */
export interface IdentityAuthSummary {
  identityId: string;
  updb?: { id: string; username: string };
  cert?: { id: string; fingerprint: string };
  hasApiSession: boolean;
  isMfaEnabled: boolean;
}

/**
 * The fingerprint OpenZiti keys certificate authenticators by: the SHA-1 of the certificate's
 * DER, lowercase hex (as nfpem.FingerprintFromCertificate). Undefined when the PEM holds no
 * parsable certificate.
 */
export function certFingerprint(pem: string): string | undefined {
  try {
    return createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * MAX_AUTHENTICATOR_METHODS_REACHED: an identity has one authenticator per method
 * (controller/model/authenticator_manager.go ApplyCreate).
 */
export function methodMax(): ZitiError {
  return new ZitiError('MAX_AUTHENTICATOR_METHODS_REACHED');
}
