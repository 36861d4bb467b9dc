/**
 * Authenticator messages ↔ HTTP: `authenticatorDetail` and the update requests.
 */
import { entityRef } from '@edge/envelope';
import { baseEntity, withFields } from '../../shared/entity.js';
import type { auth } from '@edge/proto';
import type { AuthenticatorChangeBody } from './schemas.js';

/** `authenticatorDetail`. */
export function renderAuthenticator(a: auth.Authenticator__Output) {
  return withFields(baseEntity(a, 'authenticators'), {
    method: a.method,
    identityId: a.identityId,
    identity: entityRef('identities', 'identities', a.identityId, a.identityName),
    ...(a.username !== undefined ? { username: a.username } : {}),
    // as authenticator_api_model.go: the certificate fields only on cert authenticators
    ...(a.method === 'cert' ? { fingerprint: a.fingerprint ?? '', certPem: a.certPem ?? '', isIssuedByNetwork: a.isIssuedByNetwork } : {}),
    isExtendRequested: a.extendRequestedAt !== undefined,
    isKeyRollRequested: a.isKeyRollRequested,
    ...(a.extendRequestedAt !== undefined ? { extendRequestedAt: a.extendRequestedAt } : {}),
  });
}

/** The fields a body changes: all three for a replace, those present (and not null) for a patch. */
export function changeMask(body: Record<string, unknown>, replace: boolean): string[] {
  return ['username', 'password', 'tags'].filter((f) => replace || (f in body && body[f] !== null));
}

/** The update request of a replace or patch body. */
export function toUpdate(id: string, b: AuthenticatorChangeBody & { currentPassword?: string }, mask: string[], ownerIdentityId = ''): auth.UpdateAuthenticatorRequest {
  return {
    id, ownerIdentityId, username: b.username ?? '', password: b.password ?? '', tagsJson: JSON.stringify(b.tags ?? {}), updateMask: mask,
    currentPassword: b.currentPassword,
  };
}
