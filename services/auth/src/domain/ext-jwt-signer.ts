/**
 * External JWT signers (as controller/model/external_jwt_signer_manager.go in OpenZiti): an
 * issuer whose JWTs prove an identity, verified with one certificate or the keys a JWKS
 * endpoint publishes; the identity is found by a claim (`sub` unless configured), as its id or
 * as its externalId.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { fieldError } from '@edge/errors';

export type TargetToken = 'ACCESS' | 'ID';

/** The writable fields of a signer. */
export interface ExtJwtSignerInput {
  name: string;
  certPem: string | null;
  jwksEndpoint: string | null;
  kid: string | null;
  issuer: string;
  audience: string;
  claimsProperty: string;
  useExternalId: boolean;
  externalAuthUrl: string | null;
  clientId: string | null;
  scopes: string[];
  targetToken: TargetToken;
  enabled: boolean;
  enrollToCertEnabled: boolean;
  enrollToTokenEnabled: boolean;
  enrollAuthPolicyId: string;
  enrollNameClaimsSelector: string;
  enrollAttributeClaimsSelector: string;
  tags: Record<string, unknown>;
}

/** What the signer's certificate says about itself. */
export interface SignerCertificate {
  fingerprint: string;
  commonName: string;
  notBefore: Date;
  notAfter: Date;
}

/** A stored signer. */
export interface ExtJwtSigner extends ExtJwtSignerInput {
  id: string;
  certificate: SignerCertificate | null;
  createdAt: Date;
  updatedAt: Date;
}

/** JSON names of the writable fields (an update mask names a subset). */
export const EXT_JWT_SIGNER_FIELDS = [
  'name', 'certPem', 'jwksEndpoint', 'kid', 'issuer', 'audience', 'claimsProperty', 'useExternalId', 'externalAuthUrl', 'clientId',
  'scopes', 'targetToken', 'enabled', 'enrollToCertEnabled', 'enrollToTokenEnabled', 'enrollAuthPolicyId', 'enrollNameClaimsSelector',
  'enrollAttributeClaimsSelector', 'tags',
] as const;

/** Reads the signer certificate; a field error when the PEM is not one. */
export function readSignerCertificate(pem: string): SignerCertificate {
  try {
    const cert = new X509Certificate(pem);
    const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? '';
    return {
      fingerprint: createHash('sha1').update(cert.raw).digest('hex'),
      commonName: cn,
      notBefore: new Date(cert.validFrom),
      notAfter: new Date(cert.validTo),
    };
  } catch {
    throw fieldError('certPem', 'must be a PEM encoded X.509 certificate', null);
  }
}

/** Checks the rules zod cannot: exactly one key source, an http(s) JWKS URL, a claim to read. */
export function validateExtJwtSigner(s: ExtJwtSignerInput): SignerCertificate | null {
  if (!s.name.trim()) throw fieldError('name', 'must not be empty', s.name);
  if (!s.issuer) throw fieldError('issuer', 'must not be empty', s.issuer);
  if (!s.audience) throw fieldError('audience', 'must not be empty', s.audience);
  if (!s.claimsProperty) throw fieldError('claimsProperty', 'must not be empty', s.claimsProperty);
  if (s.certPem && s.jwksEndpoint) throw fieldError('jwksEndpoint', 'give either certPem or jwksEndpoint, not both', s.jwksEndpoint);
  if (!s.certPem && !s.jwksEndpoint) throw fieldError('certPem', 'one of certPem or jwksEndpoint is required', null);
  if (s.jwksEndpoint) {
    let url: URL | undefined;
    try {
      url = new URL(s.jwksEndpoint);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw fieldError('jwksEndpoint', 'must be an http(s) URL', s.jwksEndpoint);
  }
  return s.certPem ? readSignerCertificate(s.certPem) : null;
}

/** The identity a verified token names: the claim's value, read as an id or an externalId. */
export function identityClaim(s: Pick<ExtJwtSigner, 'claimsProperty'>, payload: Record<string, unknown>): string | undefined {
  const v = payload[s.claimsProperty];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
