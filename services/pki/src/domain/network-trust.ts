/**
 * What an enrollee uses to trust the network before it holds a token: the network JWT
 * (`GET /network-jwts`, as OpenZiti's network-jwt_router.go) and the nonce challenge
 * (`POST /enroll/challenge`), both signed with the enrollment signing key, the listener's.
 */
import { randomUUID, sign } from 'node:crypto';
import { fieldError } from '@edge/errors';
import { certificateKeyId, jwsAlgorithm } from './enrollment-jwt.js';

/** The name OpenZiti gives its one network JWT. */
export const DEFAULT_NETWORK_JWT_NAME = 'default';
/** The audience of enrollment JWTs in OpenZiti (env.JwtAudEnrollment). */
const ENROLLMENT_AUDIENCE = 'openziti-enroller';

/** The claims of the network JWT: method `network`, the API address as issuer and subject. */
export function networkJwtClaims(advertisedAddress: string) {
  const iss = `https://${advertisedAddress}/`;
  return { em: 'network' as const, aud: [ENROLLMENT_AUDIENCE], iss, sub: iss, jti: randomUUID(), ctrls: [`https://${advertisedAddress}`] };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HASH = { ES256: 'sha256', ES384: 'sha384', ES512: 'sha512', RS256: 'sha256' } as const;

/** nonceSignature: the nonce signed by the key `keyId` names, with the CA pool to check it against. */
export interface NonceSignature {
  algorithm: string;
  caPool: string;
  kid: string;
  signature: string;
}

/**
 * Signs the nonce's UTF-8 bytes with the signer's key. The signature is in JWS form (r||s for
 * ECDSA), base64, so it verifies with the key `/enroll/jwks` publishes under `kid`.
 */
export function signNonce(signer: { certPem: string; keyPem: string }, caPool: string, keyId: string, nonce: string): NonceSignature {
  if (!UUID.test(nonce)) throw fieldError('nonce', 'must be a UUID', nonce);
  const kid = certificateKeyId(signer.certPem);
  if (keyId.toLowerCase() !== kid) throw fieldError('keyId', 'is not a key of this network', keyId);
  const algorithm = jwsAlgorithm(signer.certPem);
  const signature = sign(HASH[algorithm], Buffer.from(nonce, 'utf8'), { key: signer.keyPem, dsaEncoding: 'ieee-p1363' });
  return { algorithm, caPool, kid, signature: signature.toString('base64') };
}
