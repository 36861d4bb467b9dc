/**
 * Client certificates as authenticators (controller/model/authenticator_mod_cert.go in OpenZiti):
 * identified by the SHA-1 fingerprint of the leaf's DER, checked against the auth policy's
 * certificate rules at login.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { ZitiError, fieldError } from '@edge/errors';
import type { AuthPolicy } from './auth-policy.js';

/** The leaf (first certificate) of a PEM chain; a validation error when there is none. */
export function leafCertificate(pem: string, field = 'certPem'): X509Certificate {
  const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];
  try {
    if (!first) throw new Error('no certificate');
    return new X509Certificate(first);
  } catch {
    throw fieldError(field, 'must be a PEM certificate', null);
  }
}

/** Lower-case hex SHA-1 of the DER, no separators: OpenZiti's fingerprint format. */
export function fingerprintOf(cert: X509Certificate): string {
  return createHash('sha1').update(cert.raw).digest('hex');
}

/** The TLS verdict on a presented client certificate, as the gateway passes it on. */
export interface PresentedCertificate {
  pem: string;
  /** Node's TLS authorization error (e.g. CERT_HAS_EXPIRED), or '' when the chain verified. */
  tlsError: string;
}

const EXPIRED = new Set(['CERT_HAS_EXPIRED']);

/**
 * Whether a presented certificate may log in under `policy`: the TLS layer must have verified
 * it against the controller's CA bundle, except that an expired one passes when the policy
 * allows expired certificates (authenticator_mod_cert.go). Also re-checks the validity dates
 * here, so the rule holds whatever the transport reported.
 */
export function certificateLoginAllowed(presented: PresentedCertificate, cert: X509Certificate, policy: AuthPolicy, now = new Date()): boolean {
  if (!policy.primary.cert.allowed) return false;
  const expired = now.getTime() > Date.parse(cert.validTo) || now.getTime() < Date.parse(cert.validFrom);
  if (presented.tlsError !== '' && !EXPIRED.has(presented.tlsError)) return false;
  if ((expired || presented.tlsError !== '') && !policy.primary.cert.allowExpiredCerts) return false;
  return true;
}

/** CERT_IN_USE: the fingerprint belongs to an authenticator already. */
export function certInUse(): ZitiError {
  return new ZitiError('CERT_IN_USE');
}

/**
 * Whether the leaf of `certPem` was signed by one of the CA certificates in `caPem` (names
 * match and the signature verifies): what a deleted CA takes with it, and whether the
 * controller's own CA issued a certificate (controller/db/migration_v37.go).
 */
export function issuedBy(certPem: string, caPem: string): boolean {
  try {
    const leaf = leafCertificate(certPem);
    const cas = caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    return cas.some((pem) => {
      const ca = new X509Certificate(pem);
      return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
    });
  } catch {
    return false;
  }
}
