/**
 * Subjects the identity service publishes. Consumers must be idempotent: delivery is
 * at-least-once.
 */
import type { Bus } from '@edge/bus';
import type { Identity } from './domain/identity.js';

export const Subjects = {
  identityCreated: 'edge.identity.identity.created',
  identityUpdated: 'edge.identity.identity.updated',
  identityDeleted: 'edge.identity.identity.deleted',
  /** Its API sessions must end (the auth service consumes it durably). */
  identityDisabled: 'edge.identity.identity.disabled',
} as const;

/** What other services learn about an identity from its events. */
export interface IdentityEvent {
  id: string;
  name: string;
  typeId: string;
  isAdmin: boolean;
  disabled: boolean;
  roleAttributes: string[];
}

function payload(i: Identity): IdentityEvent {
  return { id: i.id, name: i.name, typeId: i.typeId, isAdmin: i.isAdmin, disabled: i.disabled, roleAttributes: i.roleAttributes };
}

/** Publishes identity changes (always after the write committed). */
export function createIdentityEvents(bus: Bus) {
  return {
    created: (i: Identity) => bus.publish(Subjects.identityCreated, payload(i)),
    updated: (i: Identity) => bus.publish(Subjects.identityUpdated, payload(i)),
    deleted: (i: Identity) => bus.publish(Subjects.identityDeleted, payload(i)),
    disabled: (i: Identity) => bus.publish(Subjects.identityDisabled, payload(i)),
  };
}

export type IdentityEvents = ReturnType<typeof createIdentityEvents>;
