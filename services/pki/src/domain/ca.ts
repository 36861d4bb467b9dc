/**
 * Certificate authorities (third-party CAs): created unverified, proven by a certificate they
 * signed whose common name is the verification token, then trusted for certificate login and
 * for ottca / ca auto-enrollment (controller/model/ca_manager.go, ca_model.go and
 * internal/routes/ca_router.go in OpenZiti).
 */
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ZitiError, fieldError } from '@edge/errors';

/** Where an identity's externalId sits in a CA-issued certificate (externalIdClaim of the specs). */
export interface ExternalIdClaim {
  location: 'COMMON_NAME' | 'SAN_URI' | 'SAN_EMAIL';
  matcher: 'ALL' | 'PREFIX' | 'SUFFIX' | 'SCHEME';
  matcherCriteria: string;
  parser: 'NONE' | 'SPLIT';
  parserCriteria: string;
  index: number;
}

/** What an admin writes. `certPem` is fixed at create. */
export interface CaInput {
  name: string;
  certPem: string;
  identityRoles: string[];
  identityNameFormat: string;
  externalIdClaim: ExternalIdClaim | null;
  isAuthEnabled: boolean;
  isAutoCaEnrollmentEnabled: boolean;
  isOttCaEnrollmentEnabled: boolean;
  tags: Record<string, unknown>;
}

/** A stored CA. */
export interface Ca extends CaInput {
  id: string;
  fingerprint: string;
  isVerified: boolean;
  verificationToken: string;
  createdAt: Date;
  updatedAt: Date;
}

/** OpenZiti's DefaultCaIdentityNameFormat. */
export const DEFAULT_IDENTITY_NAME_FORMAT = '[caName]-[commonName]';

export const CLAIM_LOCATIONS = ['COMMON_NAME', 'SAN_URI', 'SAN_EMAIL'] as const;
export const CLAIM_MATCHERS = ['ALL', 'PREFIX', 'SUFFIX', 'SCHEME'] as const;
export const CLAIM_PARSERS = ['NONE', 'SPLIT'] as const;

/** The writable fields by JSON name, as update masks name them. */
export const CA_FIELDS = [
  'name', 'identityRoles', 'identityNameFormat', 'externalIdClaim', 'isAuthEnabled', 'isAutoCaEnrollmentEnabled', 'isOttCaEnrollmentEnabled', 'tags',
] as const;

/**
 * A PEM block. The body holds no '-', so a match attempt stops at the next dash: linear time on
 * hostile text (a back-referenced lazy body took seconds on a megabyte of BEGIN lines).
 */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END ([A-Z0-9 ]+)-----/g;

/** The well-formed PEM blocks of a text, in order: label and the whole block. */
function pemBlocks(pem: string): Array<{ label: string; text: string }> {
  return [...pem.matchAll(PEM_BLOCK)].filter((m) => m[1] === m[3]).map((m) => ({ label: m[1]!, text: m[0] }));
}

/** The certificates of a PEM text, in order; unreadable blocks throw. */
export function pemCertificates(pem: string): X509Certificate[] {
  return pemBlocks(pem).filter((b) => b.label === 'CERTIFICATE').map((b) => new X509Certificate(b.text));
}

/** Lower-case hex SHA-1 of the DER, OpenZiti's fingerprint format. */
export function fingerprintOf(cert: X509Certificate): string {
  return createHash('sha1').update(cert.raw).digest('hex');
}

/**
 * Checks what a create carries (ca_model.go toBoltEntityForCreate): a readable PEM whose first
 * certificate is a CA; returns the fingerprint that identifies it.
 */
export function checkCaCertificate(certPem: string): { fingerprint: string } {
  let certs: X509Certificate[];
  try {
    certs = pemCertificates(certPem);
  } catch {
    throw fieldError('certPem', 'could not parse PEM certificate', null);
  }
  if (certs.length === 0) throw fieldError('certPem', 'at least one leaf certificate must be supplied', null);
  if (!certs[0]!.ca) throw new ZitiError('CERTIFICATE_IS_NOT_CA', { cause: { field: 'certPem', reason: 'certificate is not a CA', value: null } });
  return { fingerprint: fingerprintOf(certs[0]!) };
}

/** Checks the input rules that do not need the store; returns the input with defaults applied. */
export function checkCaInput(input: CaInput): CaInput {
  if (input.name.trim() === '') throw fieldError('name', 'is required', input.name);
  for (const attr of input.identityRoles) {
    if (attr.startsWith('#') || attr.startsWith('@')) throw fieldError('identityRoles', 'role attributes may not start with # or @', attr);
  }
  const claim = input.externalIdClaim;
  if (claim) {
    if (!CLAIM_LOCATIONS.includes(claim.location)) throw fieldError('externalIdClaim.location', `must be one of ${CLAIM_LOCATIONS.join(', ')}`, claim.location);
    if (!CLAIM_MATCHERS.includes(claim.matcher)) throw fieldError('externalIdClaim.matcher', `must be one of ${CLAIM_MATCHERS.join(', ')}`, claim.matcher);
    if (!CLAIM_PARSERS.includes(claim.parser)) throw fieldError('externalIdClaim.parser', `must be one of ${CLAIM_PARSERS.join(', ')}`, claim.parser);
    if (claim.index < 0) throw fieldError('externalIdClaim.index', 'must not be negative', claim.index);
    checkClaimCombination(claim);
  }
  return { ...input, identityNameFormat: input.identityNameFormat.trim() === '' ? DEFAULT_IDENTITY_NAME_FORMAT : input.identityNameFormat };
}

/** The matchers each location takes: a URI matches by scheme, a name or an email by text. */
const MATCHERS_OF: Record<ExternalIdClaim['location'], readonly ExternalIdClaim['matcher'][]> = {
  COMMON_NAME: ['ALL', 'PREFIX', 'SUFFIX'],
  SAN_EMAIL: ['ALL', 'PREFIX', 'SUFFIX'],
  SAN_URI: ['ALL', 'SCHEME'],
};

/**
 * Refuses a claim that could never be read from a certificate, as validateExternalIdClaim in
 * controller/model/ca_model.go: a matcher the location does not take (`SAN_EMAIL` with `SCHEME`),
 * a matcher or parser other than `ALL`/`NONE` without its criteria. A 400 on `externalIdClaim`.
 */
function checkClaimCombination(claim: ExternalIdClaim): void {
  const refuse = (reason: string) => {
    throw fieldError('externalIdClaim', reason, `location=${claim.location} matcher=${claim.matcher} parser=${claim.parser}`);
  };
  if (!MATCHERS_OF[claim.location].includes(claim.matcher)) refuse(`unsupported matcher [${claim.matcher}] for location [${claim.location}]`);
  if (claim.matcher !== 'ALL' && claim.matcherCriteria === '') refuse(`invalid criteria [] for matcher [${claim.matcher}]`);
  if (claim.parser === 'SPLIT' && claim.parserCriteria === '') refuse(`invalid criteria [] for parser [${claim.parser}]`);
}

/** A new verification token (caDetail.verificationToken is a uuid). */
export function newVerificationToken(): string {
  return randomUUID();
}

/**
 * Applies an update: `mask` names the fields to take from `next`; `externalIdClaim.<field>`
 * changes one field of the current claim (PATCH), `externalIdClaim` replaces it.
 */
export function applyCaUpdate(current: CaInput, next: CaInput, mask: readonly string[]): CaInput {
  const out: Record<string, unknown> = { ...current };
  for (const f of CA_FIELDS) if (mask.includes(f)) out[f] = next[f];
  const claimFields = mask.filter((m) => m.startsWith('externalIdClaim.')).map((m) => m.slice('externalIdClaim.'.length));
  if (!mask.includes('externalIdClaim') && claimFields.length > 0) {
    const base: ExternalIdClaim = current.externalIdClaim ?? { location: 'COMMON_NAME', matcher: 'ALL', matcherCriteria: '', parser: 'NONE', parserCriteria: '', index: 0 };
    const patch = (next.externalIdClaim ?? {}) as Partial<ExternalIdClaim>;
    out.externalIdClaim = { ...base, ...Object.fromEntries(claimFields.filter((f) => f in base).map((f) => [f, patch[f as keyof ExternalIdClaim] ?? base[f as keyof ExternalIdClaim]])) };
  }
  return out as unknown as CaInput;
}

/** Whether `cert` was signed by `issuer` (names match and the signature verifies). */
function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/**
 * Whether the leaf of `chain` (leaf first, then any intermediates) leads to `caCert` through
 * signatures; validity dates are left to the caller.
 */
export function chainsTo(chain: X509Certificate[], caCert: X509Certificate): boolean {
  let current: X509Certificate | undefined = chain[0];
  const pool = chain.slice(1);
  for (let depth = 0; current && depth <= pool.length; depth++) {
    const cert: X509Certificate = current;
    if (signedBy(cert, caCert)) return true;
    current = pool.find((c) => c !== cert && signedBy(cert, c));
  }
  return false;
}

/** Whether a certificate is within its validity dates. */
export function isCurrentlyValid(cert: X509Certificate, now = new Date()): boolean {
  return now.getTime() >= Date.parse(cert.validFrom) && now.getTime() <= Date.parse(cert.validTo);
}

/** The common name of a certificate's subject ('' when none). */
export function commonNameOf(cert: X509Certificate): string {
  return /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? '';
}

/**
 * Proof of possession of the CA (ca_router.go VerifyCert): one PEM certificate, whose common
 * name is the verification token, that chains to the CA certificate.
 */
export function checkVerification(ca: Pick<Ca, 'certPem' | 'isVerified' | 'verificationToken'>, pem: string, now = new Date()): void {
  if (ca.isVerified) throw new ZitiError('CA_ALREADY_VERIFIED');
  const block = pemBlocks(pem)[0];
  if (!block) throw new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: 'the body must be a PEM certificate' });
  if (block.label !== 'CERTIFICATE') throw new ZitiError('EXPECTED_PEM_CERTIFICATE', { causeMessage: `encountered PEM block type ${block.label}` });
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(block.text);
  } catch {
    throw new ZitiError('COULD_NOT_PARSE_DER_BLOCK');
  }
  if (commonNameOf(cert) !== ca.verificationToken) throw new ZitiError('INVALID_COMMON_NAME');
  const caCert = pemCertificates(ca.certPem)[0]!;
  if (!signedBy(cert, caCert) || !isCurrentlyValid(cert, now)) throw new ZitiError('CERTIFICATE_FAILED_VALIDATION');
}

/** The values a claim location offers in a certificate. */
export type CertificateNames = { commonName: string; uris: string[]; emails: string[] };

/**
 * The externalId a CA's claim reads from a leaf's names: the values at the location that match,
 * each split by the parser, and the one at `index` of those; '' when there is none.
 */
export function externalIdOf(claim: ExternalIdClaim, names: CertificateNames): string {
  const values = claim.location === 'COMMON_NAME' ? [names.commonName].filter((v) => v !== '') : claim.location === 'SAN_URI' ? names.uris : names.emails;
  const matched = values.filter((v) => {
    switch (claim.matcher) {
      case 'ALL': return true;
      case 'PREFIX': return v.startsWith(claim.matcherCriteria);
      case 'SUFFIX': return v.endsWith(claim.matcherCriteria);
      case 'SCHEME': return v.toLowerCase().startsWith(`${claim.matcherCriteria.toLowerCase()}:`);
    }
    return false;
  });
  const parsed = matched.flatMap((v) => (claim.parser === 'SPLIT' && claim.parserCriteria !== '' ? v.split(claim.parserCriteria) : [v]));
  return parsed[claim.index] ?? '';
}

/**
 * The claims of a CA's static enrollment JWT (ca_router.go generateJwt): method `ca`, the CA id
 * as subject and id, the advertised address with a trailing slash as issuer, no expiry.
 */
export function caJwtClaims(caId: string, advertisedAddress: string) {
  return { em: 'ca' as const, aud: [''], iss: `https://${advertisedAddress}/`, sub: caId, jti: caId };
}

/** The names a claim may read from a certificate: its CN and its SAN URIs and e-mail addresses. */
export function certificateNames(cert: X509Certificate): CertificateNames {
  const names: CertificateNames = { commonName: commonNameOf(cert), uris: [], emails: [] };
  const parsed = new x509.X509Certificate(cert.raw);
  const san = parsed.getExtension(x509.SubjectAlternativeNameExtension);
  for (const n of san?.names.toJSON() ?? []) {
    if (n.type === 'url') names.uris.push(n.value);
    if (n.type === 'email') names.emails.push(n.value);
  }
  return names;
}
