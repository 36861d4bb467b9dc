/**
 * The events the auth service publishes and consumes (subjects and payloads declared in
 * @edge/events). Events are recorded in the transaction of the write that causes them (the
 * stores call these inside it) and relayed to the bus after the commit (libs/outbox); consumers
 * are idempotent because delivery is at-least-once.
 */
import type { Bus, Subscription } from '@edge/bus';
import {
  API_SESSION_CREATED, API_SESSION_DELETED, API_SESSION_UPDATED, AUTHENTICATOR_SUBJECTS, CA_DELETED, IDENTITY_CREATED, IDENTITY_DELETED,
  IDENTITY_DISABLED, IDENTITY_UPDATED, MFA_DELETED, MFA_VERIFIED, authSettingSubject,
  type ApiSessionCreatedEvent, type ApiSessionEvent, type AuthSetting, type AuthSettingChange, type AuthSettingEvent, type CaDeletedEvent,
  type ChangeKind, type IdentityEvent, type IdentityOwnedEvent, type Received,
} from '@edge/events';
import type { Logger } from '@edge/logging';
import type { Outbox } from '@edge/outbox';
import type { Kysely } from 'kysely';
import type { ApiSessionRef } from './domain/api-session.js';
import type { AuthDb } from './store/db.js';

/** Consumer group of this service: one replica handles each message. */
export const CONSUMER_GROUP = 'auth';

type Trx = Kysely<AuthDb>;

/** Records the auth service's events in the transaction of the write that causes them. */
export function createAuthEvents(outbox: Outbox<AuthDb>) {
  return {
    /** Runs a write and its events in one transaction; they are published after the commit. */
    transaction: <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => outbox.transaction(fn),
    /** One deleted event per API session. */
    async apiSessionsDeleted(trx: Trx, sessions: readonly ApiSessionRef[]): Promise<void> {
      for (const s of sessions) await outbox.enqueue(trx, API_SESSION_DELETED, { id: s.id, identityId: s.identityId } satisfies ApiSessionEvent);
    },
    /** An API session changed what it may do (MFA completed). */
    apiSessionUpdated: (trx: Trx, s: ApiSessionRef) => outbox.enqueue(trx, API_SESSION_UPDATED, { id: s.id, identityId: s.identityId } satisfies ApiSessionEvent),
    /** An API session was created, with the environment its client reported (empty strings when none). */
    apiSessionCreated: (trx: Trx, s: ApiSessionRef, env: { envInfoJson: string; sdkInfoJson: string }) =>
      outbox.enqueue(trx, API_SESSION_CREATED, { id: s.id, identityId: s.identityId, envInfoJson: env.envInfoJson, sdkInfoJson: env.sdkInfoJson } satisfies ApiSessionCreatedEvent),
    /** One event per authenticator created, updated or deleted. */
    async authenticatorsChanged(trx: Trx, what: ChangeKind, authenticators: readonly IdentityOwnedEvent[]): Promise<void> {
      for (const a of authenticators) await outbox.enqueue(trx, AUTHENTICATOR_SUBJECTS[what], { id: a.id, identityId: a.identityId } satisfies IdentityOwnedEvent);
    },
    mfaVerified: (trx: Trx, mfa: IdentityOwnedEvent) => outbox.enqueue(trx, MFA_VERIFIED, { id: mfa.id, identityId: mfa.identityId } satisfies IdentityOwnedEvent),
    mfaDeleted: (trx: Trx, mfa: IdentityOwnedEvent) => outbox.enqueue(trx, MFA_DELETED, { id: mfa.id, identityId: mfa.identityId } satisfies IdentityOwnedEvent),
    /** An auth policy or external JWT signer changed or went. */
    settingChanged: (trx: Trx, entity: AuthSetting, id: string, what: AuthSettingChange) => outbox.enqueue(trx, authSettingSubject(entity, what), { id } satisfies AuthSettingEvent),
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
  deps: ConsumerDeps, subject: string, change: IdentityChange, react?: (identityId: string, data: Pick<Received<IdentityEvent>, 'disabled'>) => Promise<void>,
): Promise<Subscription> {
  return deps.bus.consume<Received<IdentityEvent>>(CONSUMER_GROUP, subject, async (msg) => {
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
    await deps.bus.consume<Received<CaDeletedEvent>>(CONSUMER_GROUP, CA_DELETED, async (msg) => {
      if (typeof msg.data?.certPem !== 'string' || msg.data.certPem === '') {
        deps.log.warn({ subject: msg.subject }, 'CA deletion event without a certificate, ignored');
        return;
      }
      await deps.onCaDeleted(msg.data.certPem);
    }),
  ];
}
