/**
 * Enrollment JWTs, signed by the key of the certificate the HTTPS listener serves: SDKs verify
 * them against the public key of the server certificate the controller presents (WIRE.md).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { exportJWK, importPKCS8, importX509, SignJWT, type JWK } from 'jose';
import * as x509 from '@peculiar/x509';
import type { EnrollmentClaims } from './enrollment.js';

/** The claims of a CA's static enrollment JWT: like an enrollment's, without token expiry. */
export type CaEnrollmentClaims = Omit<EnrollmentClaims, 'em' | 'exp' | 'ctrls'> & { em: 'ca' };

/** The listener's certificate (leaf first; more certificates may follow) and its PKCS#8 key. */
export interface JwtSigningCertificate {
  certPem: string;
  keyPem: string;
}

/** The JWS algorithm for a certificate's key, as OpenZiti's jwtsigner.GetJwtSigningMethod picks it. */
export function jwsAlgorithm(certPem: string): 'ES256' | 'ES384' | 'ES512' | 'RS256' {
  const key = new X509Certificate(certPem).publicKey;
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  switch (key.asymmetricKeyDetails?.namedCurve) {
    case 'prime256v1': return 'ES256';
    case 'secp384r1': return 'ES384';
    case 'secp521r1': return 'ES512';
  }
  throw new Error(`no JWS algorithm for a ${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.namedCurve ?? ''} key`);
}

/** The key id: lower-case hex SHA-1 of the certificate's DER (as OpenZiti's GetEnrollmentJwtSigner). */
export function certificateKeyId(certPem: string): string {
  return createHash('sha1').update(new X509Certificate(certPem).raw).digest('hex');
}

/** Claims of the network JWT: method `network`, no expiry. */
export type NetworkClaims = Omit<EnrollmentClaims, 'em' | 'exp'> & { em: 'network' };

/** Signs the claims; the header is `{alg, kid, typ: "JWT"}` as golang-jwt writes it for OpenZiti. */
export async function signEnrollmentJwt(signer: JwtSigningCertificate, claims: EnrollmentClaims | CaEnrollmentClaims | NetworkClaims): Promise<string> {
  const alg = jwsAlgorithm(signer.certPem);
  const key = await importPKCS8(signer.keyPem, alg);
  return new SignJWT({ ...claims }).setProtectedHeader({ alg, kid: certificateKeyId(signer.certPem), typ: 'JWT' }).sign(key);
}

/** The JWKS of `GET /enroll/jwks`: the signing certificate's public key with its chain in x5c. */
export async function enrollmentJwks(certChainPem: string): Promise<{ keys: JWK[] }> {
  const chain = x509.PemConverter.decode(certChainPem);
  const leafPem = x509.PemConverter.encode(chain[0]!, 'CERTIFICATE');
  const alg = jwsAlgorithm(leafPem);
  const jwk = await exportJWK(await importX509(leafPem, alg, { extractable: true }));
  const x5c = chain.map((der) => Buffer.from(der).toString('base64'));
  const x5t = createHash('sha1').update(Buffer.from(chain[0]!)).digest('base64url');
  return { keys: [{ ...jwk, kid: certificateKeyId(leafPem), alg, use: 'sig', x5c, x5t }] };
}
