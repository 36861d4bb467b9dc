/**
 * What the auth service publishes: API sessions, authenticators, MFA, the principals the gateway
 * caches, and the settings that judge sessions.
 */
import { eventsOf, subject, type ChangeKind } from './subject.js';

/** An API session as its events name it. */
export interface ApiSessionEvent {
  id: string;
  identityId: string;
}

/** A created API session, with the environment its client reported (empty strings when none). */
export interface ApiSessionCreatedEvent extends ApiSessionEvent {
  envInfoJson: string;
  sdkInfoJson: string;
}

/** What an authenticator or MFA event names: the entity and the identity it belongs to. */
export interface IdentityOwnedEvent {
  id: string;
  identityId: string;
}

/** The identity whose principals changed. */
export interface PrincipalEvent {
  identityId: string;
}

/** An auth setting by its id. */
export interface AuthSettingEvent {
  id: string;
}

/**
 * Published when an API session is created and that changes something others know: its client
 * reported an environment, or its identity had no API session before (it now has one); payload
 * {@link ApiSessionCreatedEvent}. The identity service records a reported environment on the
 * identity, so a login does not wait for it; caches of an identity's auth summary learn it has a
 * session. A further session of an identity that already has one, reporting nothing, is not
 * announced.
 */
export const API_SESSION_CREATED = subject('auth', 'api-session', 'created');
/** Published when an API session changed what it may do (MFA completed); payload {@link ApiSessionEvent}. */
export const API_SESSION_UPDATED = subject('auth', 'api-session', 'updated');
/** Published when an API session ends (logout, expiry, identity deleted); payload {@link ApiSessionEvent}. */
export const API_SESSION_DELETED = subject('auth', 'api-session', 'deleted');

/** Published when an authenticator is created; payload {@link IdentityOwnedEvent}. */
export const AUTHENTICATOR_CREATED = subject('auth', 'authenticator', 'created');
/**
 * Published when an authenticator's username or current certificate changed; payload
 * {@link IdentityOwnedEvent}. Changes nobody reads from outside (password, tags, a pending
 * certificate) may announce it too.
 */
export const AUTHENTICATOR_UPDATED = subject('auth', 'authenticator', 'updated');
/** Published when an authenticator is deleted (alone, or with the identity or CA it belonged to); payload {@link IdentityOwnedEvent}. */
export const AUTHENTICATOR_DELETED = subject('auth', 'authenticator', 'deleted');
/** The authenticator subjects by what happened. */
export const AUTHENTICATOR_SUBJECTS: Readonly<Record<ChangeKind, string>> = {
  created: AUTHENTICATOR_CREATED, updated: AUTHENTICATOR_UPDATED, deleted: AUTHENTICATOR_DELETED,
};

/** Published when an MFA enrollment is verified (MFA is on for its identity from then on); payload {@link IdentityOwnedEvent}. */
export const MFA_VERIFIED = subject('auth', 'mfa', 'verified');
/** Published when an MFA enrollment is removed; payload {@link IdentityOwnedEvent}. */
export const MFA_DELETED = subject('auth', 'mfa', 'deleted');

/**
 * Published when what the principals of an identity carry changed in the auth service (its read
 * model of the identity took a change, or forgot it, or its authenticators or MFA changed: a
 * trigger of services/auth/migrations/016 records it); payload {@link PrincipalEvent}. The gateway
 * drops that identity's cached principals.
 */
export const PRINCIPAL_UPDATED = subject('auth', 'principal', 'updated');

/** An auth setting whose change makes sessions be judged anew (the gateway drops its cached principals). */
export type AuthSetting = 'auth-policy' | 'external-jwt-signer';
/** What happens to an auth setting that is announced (a new one judges nobody yet). */
export type AuthSettingChange = 'updated' | 'deleted';
/**
 * Published when an auth policy or external JWT signer is updated or deleted:
 * `edge.auth.<setting>.<change>`; payload {@link AuthSettingEvent}.
 */
export const authSettingSubject = (setting: AuthSetting, change: AuthSettingChange) => subject('auth', setting, change);

/** Every event of authenticators. */
export const AUTHENTICATOR_EVENTS = eventsOf('auth', 'authenticator');
/** Every event of MFA enrollments. */
export const MFA_EVENTS = eventsOf('auth', 'mfa');
/** Every event of auth policies. */
export const AUTH_POLICY_EVENTS = eventsOf('auth', 'auth-policy');
/** Every event of external JWT signers. */
export const EXTERNAL_JWT_SIGNER_EVENTS = eventsOf('auth', 'external-jwt-signer');

/** Every subject the auth service publishes. */
export const AUTH_SERVICE_SUBJECTS: readonly string[] = [
  API_SESSION_CREATED, API_SESSION_UPDATED, API_SESSION_DELETED, AUTHENTICATOR_CREATED, AUTHENTICATOR_UPDATED, AUTHENTICATOR_DELETED,
  MFA_VERIFIED, MFA_DELETED, PRINCIPAL_UPDATED,
  ...(['auth-policy', 'external-jwt-signer'] as const).flatMap((s) => (['updated', 'deleted'] as const).map((c) => authSettingSubject(s, c))),
];

/** Every pattern consumers of the auth service's events subscribe to. */
export const AUTH_SERVICE_PATTERNS: readonly string[] = [AUTHENTICATOR_EVENTS, MFA_EVENTS, AUTH_POLICY_EVENTS, EXTERNAL_JWT_SIGNER_EVENTS];
