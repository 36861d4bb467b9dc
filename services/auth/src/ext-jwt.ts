/**
 * Verification of external JWTs (`POST /authenticate?method=ext-jwt`): the signer is chosen by
 * the token's issuer, its signature checked with jose against the signer's certificate or its
 * JWKS endpoint (keys cached per signer), and issuer, audience and expiry enforced. Any failure
 * is INVALID_AUTH: a caller learns nothing about which check refused it.
 */
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, importX509, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { ExtJwtSigner } from './domain/ext-jwt-signer.js';
import type { ExtJwtSignerStore } from './store/ext-jwt-signer.js';

/** Signature algorithms accepted; `none` and HMAC (a shared secret the controller lacks) are not. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const invalidAuth = () => new ZitiError('INVALID_AUTH');

/** A verified token: the signer that vouches for it and its claims. */
export interface VerifiedJwt {
  signer: ExtJwtSigner;
  payload: JWTPayload;
}

/** Creates the verifier; JWKS key sets are fetched on first use and cached per signer and URL. */
export function createExtJwtVerifier(store: ExtJwtSignerStore, log: Logger) {
  const keySets = new Map<string, { url: string; keys: JWTVerifyGetKey }>();

  function keySet(signer: ExtJwtSigner): JWTVerifyGetKey {
    const cached = keySets.get(signer.id);
    if (cached && cached.url === signer.jwksEndpoint) return cached.keys;
    const keys = createRemoteJWKSet(new URL(signer.jwksEndpoint!), { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
    keySets.set(signer.id, { url: signer.jwksEndpoint!, keys });
    return keys;
  }

  return async function verify(token: string): Promise<VerifiedJwt> {
    let issuer: string | undefined;
    let alg: string | undefined;
    let kid: string | undefined;
    try {
      issuer = decodeJwt(token).iss;
      ({ alg, kid } = decodeProtectedHeader(token));
    } catch {
      throw invalidAuth();
    }
    if (!issuer || !alg || !ALGORITHMS.includes(alg)) throw invalidAuth();
    const signer = await store.findByIssuer(issuer);
    if (!signer || !signer.enabled) throw invalidAuth();
    if (signer.certPem && signer.kid && kid !== undefined && kid !== signer.kid) throw invalidAuth();
    try {
      const options = { issuer: signer.issuer, audience: signer.audience, algorithms: ALGORITHMS };
      const { payload } = signer.certPem
        ? await jwtVerify(token, await importX509(signer.certPem, alg), options)
        : await jwtVerify(token, keySet(signer), options);
      return { signer, payload };
    } catch (err) {
      log.info({ signerId: signer.id, reason: (err as { code?: string }).code ?? (err as Error).name }, 'external JWT refused');
      throw invalidAuth();
    }
  };
}

export type ExtJwtVerifier = ReturnType<typeof createExtJwtVerifier>;
