/**
 * The secondary external JWT of an auth policy (`secondary.requireExtJwtSigner`): as in
 * OpenZiti (controller/internal/routes/current_api_session_router.go, AuthStatus), it is checked
 * on every request from the `Authorization: Bearer` JWT sent beside the session token. Until a
 * valid token from that signer naming the same identity comes along, the session is partial
 * and its auth queries carry an `EXT-JWT` entry pointing at the signer's `externalAuthUrl`.
 */
import type { JWTPayload } from 'jose';
import type { AuthPolicy } from './domain/auth-policy.js';
import { identityClaim, type ExtJwtSigner } from './domain/ext-jwt-signer.js';
import type { ExtJwtSignerStore } from './store/ext-jwt-signer.js';
import type { ExtJwtVerifier } from './ext-jwt.js';
import type { Identities, IdentityInfo } from './peers/identity.js';

interface Deps {
  signers: Pick<ExtJwtSignerStore, 'find'>;
  verify: ExtJwtVerifier;
  identities: Pick<Identities, 'findByExternalId'>;
}

/** Builds the check: the signer whose JWT is still missing for this request, or undefined. */
export function createSecondaryExtJwtCheck({ signers, verify, identities }: Deps) {
  async function names(signer: ExtJwtSigner, payload: JWTPayload, identity: IdentityInfo): Promise<boolean> {
    const claim = identityClaim(signer, payload);
    if (!claim) return false;
    if (!signer.useExternalId) return claim === identity.id;
    return (await identities.findByExternalId(claim))?.id === identity.id;
  }

  return async function pendingSigner(identity: IdentityInfo, policy: AuthPolicy, bearerToken: string): Promise<ExtJwtSigner | undefined> {
    const required = policy.secondary.requireExtJwtSigner;
    if (!required) return undefined;
    const signer = await signers.find(required);
    if (!signer) return undefined;
    if (bearerToken !== '') {
      const verified = await verify(bearerToken).catch(() => undefined);
      if (verified && verified.signer.id === required && (await names(verified.signer, verified.payload, identity))) return undefined;
    }
    return signer;
  };
}

export type SecondaryExtJwtCheck = ReturnType<typeof createSecondaryExtJwtCheck>;
