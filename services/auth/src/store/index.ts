/**
 * Every store of the auth service over its own schema; the read model of identities
 * (identity-model.ts) is created apart, over the outbox its changes announce through.
 */
import type { Kysely } from 'kysely';
import type { AuthEvents } from '../events.js';
import { createStore } from './api-session.js';
import { createApiSessionCertificateStore } from './api-session-certificate.js';
import { createAuthPolicyStore } from './auth-policy.js';
import { createAuthenticatorStore } from './authenticator.js';
import type { AuthDb } from './db.js';
import { createExtJwtSignerStore } from './ext-jwt-signer.js';
import { createLockoutStore } from './lockout.js';
import { createMfaStore } from './mfa.js';

/** The stores; writes that announce something record their events through `events` in their transaction. */
export function createAuthStores(db: Kysely<AuthDb>, events: AuthEvents) {
  return {
    apiSessions: createStore(db, events),
    apiSessionCertificates: createApiSessionCertificateStore(db),
    authPolicies: createAuthPolicyStore(db, events),
    authenticators: createAuthenticatorStore(db, events),
    extJwtSigners: createExtJwtSignerStore(db, events),
    lockouts: createLockoutStore(db),
    mfa: createMfaStore(db, events),
  };
}

export type AuthStores = ReturnType<typeof createAuthStores>;
export type { AuthDb } from './db.js';
