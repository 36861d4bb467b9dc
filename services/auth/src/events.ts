/**
 * Subjects the auth service publishes and consumes. Events leave only after the write that
 * caused them committed; consumers are idempotent because delivery is at-least-once.
 */
import type { Bus, Subscription } from '@edge/bus';
import type { Logger } from '@edge/logging';
import type { ApiSessionRef } from './domain/api-session.js';

/** Published when an API session ends (logout, expiry, identity deleted); payload {@link ApiSessionRef}. */
export const API_SESSION_DELETED = 'edge.auth.api-session.deleted';
/** Published when an API session changed what it may do (MFA completed); payload {@link ApiSessionRef}. */
export const API_SESSION_UPDATED = 'edge.auth.api-session.updated';
/** Published when an MFA enrollment is removed; payload `{id, identityId}`. */
export const MFA_DELETED = 'edge.auth.mfa.deleted';
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

/** Publishes one deleted event per API session; call after the deleting transaction committed. */
export async function publishApiSessionsDeleted(bus: Bus, sessions: ApiSessionRef[]): Promise<void> {
  for (const s of sessions) await bus.publish(API_SESSION_DELETED, { id: s.id, identityId: s.identityId });
}

/** Publishes that an API session changed; call after the write committed. */
export async function publishApiSessionUpdated(bus: Bus, session: ApiSessionRef): Promise<void> {
  await bus.publish(API_SESSION_UPDATED, { id: session.id, identityId: session.identityId });
}

/** Publishes the removal of an MFA enrollment; call after the delete committed. */
export async function publishMfaDeleted(bus: Bus, mfa: { id: string; identityId: string }): Promise<void> {
  await bus.publish(MFA_DELETED, { id: mfa.id, identityId: mfa.identityId });
}

/** What the consumers act on. */
export interface ConsumerDeps {
  bus: Bus;
  log: Logger;
  /** Ends everything an identity authenticates with; must be harmless when repeated. */
  onIdentityDeleted(identityId: string): Promise<void>;
  /** Ends the API sessions of a disabled identity; must be harmless when repeated. */
  onIdentityDisabled(identityId: string): Promise<void>;
  /** Lifts the password lockouts of an identity that is enabled now; must be harmless when repeated. */
  onIdentityEnabled(identityId: string): Promise<void>;
  /** Removes the cert authenticators a deleted CA issued; must be harmless when repeated. */
  onCaDeleted(caCertPem: string): Promise<void>;
}

/** A durable consumer of identity events that carry the identity's id. */
function consumeIdentityEvent(deps: ConsumerDeps, subject: string, handle: (identityId: string) => Promise<void>): Promise<Subscription> {
  return deps.bus.consume<{ id?: unknown }>(CONSUMER_GROUP, subject, async (msg) => {
    const id = msg.data?.id;
    if (typeof id !== 'string' || id === '') {
      // Redelivering a malformed message would never succeed: log it and let it go.
      deps.log.warn({ subject: msg.subject }, 'identity event without an id, ignored');
      return;
    }
    await handle(id);
  });
}

/** Starts this service's consumers; the caller unsubscribes them on stop. */
export async function startConsumers(deps: ConsumerDeps): Promise<Subscription[]> {
  return [
    await consumeIdentityEvent(deps, IDENTITY_DELETED, deps.onIdentityDeleted),
    await consumeIdentityEvent(deps, IDENTITY_DISABLED, deps.onIdentityDisabled),
    await deps.bus.consume<{ id?: unknown; disabled?: unknown }>(CONSUMER_GROUP, IDENTITY_UPDATED, async (msg) => {
      if (typeof msg.data?.id === 'string' && msg.data.disabled === false) await deps.onIdentityEnabled(msg.data.id);
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

/**
 * Published after an auth policy or external JWT signer changed or went: what it decides about
 * sessions must be judged anew (the gateway drops its cached principals).
 */
export function authSettingChanged(bus: Bus, entity: 'auth-policy' | 'external-jwt-signer') {
  return (id: string, what: 'updated' | 'deleted') => bus.publish(`edge.auth.${entity}.${what}`, { id });
}
