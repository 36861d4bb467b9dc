/**
 * Enrollment with a certificate a third-party CA issued (OpenZiti's enrollment_mod_ottca.go and
 * enrollment_mod_ca.go): which presented certificates count, and how an auto-enrolled identity
 * is named.
 */
import type { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ZitiError } from '@edge/errors';
import { chainsTo, commonNameOf, DEFAULT_IDENTITY_NAME_FORMAT, isCurrentlyValid, pemCertificates, type Ca } from './ca.js';

/** CERT_FAILED_VALIDATION: no presented certificate is a current client certificate of the CA. */
export function certFailedValidation(): ZitiError {
  return new ZitiError('CERT_FAILED_VALIDATION');
}

/** The presented chain (leaf first), or [] when there is none or it is unreadable. */
export function presentedChain(chainPem: string): X509Certificate[] {
  try {
    return chainPem.trim() === '' ? [] : pemCertificates(chainPem);
  } catch {
    return [];
  }
}

/** Whether the certificate may authenticate a client: no extended key usage, or clientAuth among them. */
function allowsClientAuth(cert: X509Certificate): boolean {
  const eku = new x509.X509Certificate(cert.raw).getExtension(x509.ExtendedKeyUsageExtension);
  return !eku || eku.usages.some((u) => u === x509.ExtendedKeyUsage.clientAuth || u === '2.5.29.37.0');
}

/**
 * Whether `chain`'s leaf is a client certificate issued (through the chain's intermediates) by the
 * CA and valid now, as x509 Verify with clientAuth key usage in OpenZiti.
 */
export function issuedForClient(ca: Pick<Ca, 'certPem'>, chain: X509Certificate[], now = new Date()): boolean {
  const caCert = pemCertificates(ca.certPem)[0];
  const leaf = chain[0];
  return !!caCert && !!leaf && isCurrentlyValid(leaf, now) && allowsClientAuth(leaf) && chainsTo(chain, caCert);
}

/** An ottca token's CA must still be verified and enabled for ottca (ENROLLMENT_CA_NOT_VALID otherwise). */
export function checkOttCaUsable(ca: Pick<Ca, 'isVerified' | 'isOttCaEnrollmentEnabled'>): void {
  if (!ca.isVerified || !ca.isOttCaEnrollmentEnabled) throw new ZitiError('ENROLLMENT_CA_NOT_VALID');
}

/** What the placeholders of identityNameFormat stand for. */
export interface IdentityNameParts {
  ca: Pick<Ca, 'id' | 'name' | 'identityNameFormat'>;
  leaf: X509Certificate;
  /** The name the enrollee asked for; the identity id when none. */
  requestedName: string;
  identityId: string;
}

/** The CA's identityNameFormat with its placeholders filled in (as OpenZiti's Formatter); never empty. */
export function identityName(p: IdentityNameParts): string {
  const values: Record<string, string> = {
    caName: p.ca.name, caId: p.ca.id, commonName: commonNameOf(p.leaf), requestedName: p.requestedName || p.identityId, identityId: p.identityId,
  };
  const format = p.ca.identityNameFormat || DEFAULT_IDENTITY_NAME_FORMAT;
  const name = format.replace(/\[(caName|caId|commonName|requestedName|identityId)\]/g, (_m, key: string) => values[key]!).trim();
  // An identity must have a name: a format that yields none (no common name, say) gives the id.
  return name === '' ? p.identityId : name;
}

/** The n-th alternative of a taken name: a six-digit zero-padded suffix (getIdentityName). */
export function nameWithSuffix(name: string, n: number): string {
  return `${name}${String(n).padStart(6, '0')}`;
}
