/**
 * Subjects the auth service publishes and consumes. Events are recorded in the transaction of
 * the write that causes them (the stores call these inside it) and relayed to the bus after the
 * commit (libs/outbox); consumers are idempotent because delivery is at-least-once.
 */
import type { Bus, Subscription } from '@edge/bus';
import type { Logger } from '@edge/logging';
import type { Outbox } from '@edge/outbox';
import type { Kysely } from 'kysely';
import type { ApiSessionRef } from './domain/api-session.js';
import type { AuthDb } from './store/db.js';

/** Published when an API session ends (logout, expiry, identity deleted); payload {@link ApiSessionRef}. */
export const API_SESSION_DELETED = 'edge.auth.api-session.deleted';
/** Published when an API session changed what it may do (MFA completed); payload {@link ApiSessionRef}. */
export const API_SESSION_UPDATED = 'edge.auth.api-session.updated';
/**
 * Published when an API session is created (every login); payload
 * `{id, identityId, envInfoJson, sdkInfoJson}`, the environment strings empty when the client
 * reported none. The identity service records a reported environment on the identity, so a login
 * does not wait for it; caches of what an identity authenticates with learn it has a session.
 */
export const API_SESSION_CREATED = 'edge.auth.api-session.created';
/** Published when an MFA enrollment is removed; payload `{id, identityId}`. */
export const MFA_DELETED = 'edge.auth.mfa.deleted';
/** Published when an MFA enrollment is verified (MFA is enabled for its identity from then on); payload `{id, identityId}`. */
export const MFA_VERIFIED = 'edge.auth.mfa.verified';
/** Published when an authenticator is created; payload `{id, identityId}`. */
export const AUTHENTICATOR_CREATED = 'edge.auth.authenticator.created';
/**
 * Published when an authenticator's username or current certificate changed; payload
 * `{id, identityId}`. Changes nobody reads from outside (password, tags, a pending certificate)
 * may announce it too.
 */
export const AUTHENTICATOR_UPDATED = 'edge.auth.authenticator.updated';
/** Published when an authenticator is deleted (alone, or with the identity or CA it belonged to); payload `{id, identityId}`. */
export const AUTHENTICATOR_DELETED = 'edge.auth.authenticator.deleted';
/** Published by the identity service when an identity is created; payload: the identity (services/identity events.ts). */
export const IDENTITY_CREATED = 'edge.identity.identity.created';
/** Published by the identity service when an identity is deleted; payload `{id}`. */
export const IDENTITY_DELETED = 'edge.identity.identity.deleted';
/** Published by the identity service when an identity changed (enabled included); payload `{id, disabled, …}`. */
export const IDENTITY_UPDATED = 'edge.identity.identity.updated';
/** Published by the identity service when an identity is disabled (lockout or admin); payload `{id}`. */
export const IDENTITY_DISABLED = 'edge.identity.identity.disabled';
/** Published by the pki service when a certificate authority is deleted; payload `{id, certPem}`. */
export const CA_DELETED = 'edge.pki.ca.deleted';
/** Consumer group of this service: one replica handles each message. */
export const CONSUMER_GROUP = 'auth';

/** An auth setting whose change makes sessions be judged anew (the gateway drops its cached principals). */
export type AuthSetting = 'auth-policy' | 'external-jwt-signer';

type Trx = Kysely<AuthDb>;

/** What an authenticator or MFA event names: the entity and the identity it belongs to. */
export interface IdentityOwned {
  id: string;
  identityId: string;
}

/** The three authenticator subjects by what happened. */
const AUTHENTICATOR_SUBJECTS = { created: AUTHENTICATOR_CREATED, updated: AUTHENTICATOR_UPDATED, deleted: AUTHENTICATOR_DELETED } as const;

/** Records the auth service's events in the transaction of the write that causes them. */
export function createAuthEvents(outbox: Outbox<AuthDb>) {
  return {
    /** Runs a write and its events in one transaction; they are published after the commit. */
    transaction: <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => outbox.transaction(fn),
    /** One deleted event per API session. */
    async apiSessionsDeleted(trx: Trx, sessions: readonly ApiSessionRef[]): Promise<void> {
      for (const s of sessions) await outbox.enqueue(trx, API_SESSION_DELETED, { id: s.id, identityId: s.identityId });
    },
    /** An API session changed what it may do (MFA completed). */
    apiSessionUpdated: (trx: Trx, s: ApiSessionRef) => outbox.enqueue(trx, API_SESSION_UPDATED, { id: s.id, identityId: s.identityId }),
    /** An API session was created, with the environment its client reported (empty strings when none). */
    apiSessionCreated: (trx: Trx, s: ApiSessionRef, env: { envInfoJson: string; sdkInfoJson: string }) =>
      outbox.enqueue(trx, API_SESSION_CREATED, { id: s.id, identityId: s.identityId, envInfoJson: env.envInfoJson, sdkInfoJson: env.sdkInfoJson }),
    /** One event per authenticator created, updated or deleted. */
    async authenticatorsChanged(trx: Trx, what: keyof typeof AUTHENTICATOR_SUBJECTS, authenticators: readonly IdentityOwned[]): Promise<void> {
      for (const a of authenticators) await outbox.enqueue(trx, AUTHENTICATOR_SUBJECTS[what], { id: a.id, identityId: a.identityId });
    },
    mfaVerified: (trx: Trx, mfa: IdentityOwned) => outbox.enqueue(trx, MFA_VERIFIED, { id: mfa.id, identityId: mfa.identityId }),
    mfaDeleted: (trx: Trx, mfa: IdentityOwned) => outbox.enqueue(trx, MFA_DELETED, { id: mfa.id, identityId: mfa.identityId }),
    /** An auth policy or external JWT signer changed or went. */
    settingChanged: (trx: Trx, entity: AuthSetting, id: string, what: 'updated' | 'deleted') => outbox.enqueue(trx, `edge.auth.${entity}.${what}`, { id }),
  };
}

export type AuthEvents = ReturnType<typeof createAuthEvents>;

/** How an identity event changes the read model of identities. */
export type IdentityChange = 'changed' | 'deleted';

/** What the consumers act on. */
export interface ConsumerDeps {
  bus: Bus;
  log: Logger;
  /** Applies an identity event's payload to the read model (by version, so repeats and late events change nothing). */
  onIdentityEvent(data: { id: string }, change: IdentityChange): Promise<void>;
  /** Ends everything an identity authenticates with; must be harmless when repeated. */
  onIdentityDeleted(identityId: string): Promise<void>;
  /** Ends the API sessions of a disabled identity; must be harmless when repeated. */
  onIdentityDisabled(identityId: string): Promise<void>;
  /** Lifts the password lockouts of an identity that is enabled now; must be harmless when repeated. */
  onIdentityEnabled(identityId: string): Promise<void>;
  /** Removes the cert authenticators a deleted CA issued; must be harmless when repeated. */
  onCaDeleted(caCertPem: string): Promise<void>;
}

/**
 * A durable consumer of identity events that carry the identity's id: the read model takes the
 * event first, then `react` (if any) acts on it.
 */
function consumeIdentityEvent(
  deps: ConsumerDeps, subject: string, change: IdentityChange, react?: (identityId: string, data: { disabled?: unknown }) => Promise<void>,
): Promise<Subscription> {
  return deps.bus.consume<{ id?: unknown; disabled?: unknown }>(CONSUMER_GROUP, subject, async (msg) => {
    const id = msg.data?.id;
    if (typeof id !== 'string' || id === '') {
      // Redelivering a malformed message would never succeed: log it and let it go.
      deps.log.warn({ subject: msg.subject }, 'identity event without an id, ignored');
      return;
    }
    await deps.onIdentityEvent({ ...msg.data, id }, change);
    await react?.(id, msg.data);
  });
}

/** Starts this service's consumers; the caller unsubscribes them on stop. */
export async function startConsumers(deps: ConsumerDeps): Promise<Subscription[]> {
  return [
    await consumeIdentityEvent(deps, IDENTITY_CREATED, 'changed'),
    await consumeIdentityEvent(deps, IDENTITY_DELETED, 'deleted', deps.onIdentityDeleted),
    await consumeIdentityEvent(deps, IDENTITY_DISABLED, 'changed', deps.onIdentityDisabled),
    await consumeIdentityEvent(deps, IDENTITY_UPDATED, 'changed', async (id, data) => {
      if (data.disabled === false) await deps.onIdentityEnabled(id);
    }),
    await deps.bus.consume<{ id?: unknown; certPem?: unknown }>(CONSUMER_GROUP, CA_DELETED, async (msg) => {
      if (typeof msg.data?.certPem !== 'string' || msg.data.certPem === '') {
        deps.log.warn({ subject: msg.subject }, 'CA deletion event without a certificate, ignored');
        return;
      }
      await deps.onCaDeleted(msg.data.certPem);
    }),
  ];
}
