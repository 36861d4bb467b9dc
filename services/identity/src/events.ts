/**
 * Subjects the identity service publishes. Consumers must be idempotent: delivery is
 * at-least-once.
 */
import type { Bus } from '@edge/bus';
import type { Identity } from './domain/identity.js';
import type { Router } from './domain/router.js';

export const Subjects = {
  identityCreated: 'edge.identity.identity.created',
  identityUpdated: 'edge.identity.identity.updated',
  identityDeleted: 'edge.identity.identity.deleted',
  routerCreated: (kind: string) => `edge.identity.${kind}-router.created`,
  routerUpdated: (kind: string) => `edge.identity.${kind}-router.updated`,
  routerDeleted: (kind: string) => `edge.identity.${kind}-router.deleted`,
  /** Its API sessions must end (the auth service consumes it durably). */
  identityDisabled: 'edge.identity.identity.disabled',
} as const;

/** What other services learn about an edge or transit router from its events. */
export interface RouterEvent {
  id: string;
  kind: string;
  name: string;
  roleAttributes: string[];
  disabled: boolean;
  isTunnelerEnabled: boolean;
}

function routerPayload(r: Router): RouterEvent {
  return { id: r.id, kind: r.kind, name: r.name, roleAttributes: r.roleAttributes, disabled: r.disabled, isTunnelerEnabled: r.isTunnelerEnabled };
}

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
    routerCreated: (r: Router) => bus.publish(Subjects.routerCreated(r.kind), routerPayload(r)),
    routerUpdated: (r: Router) => bus.publish(Subjects.routerUpdated(r.kind), routerPayload(r)),
    routerDeleted: (r: Router) => bus.publish(Subjects.routerDeleted(r.kind), routerPayload(r)),
    disabled: (i: Identity) => bus.publish(Subjects.identityDisabled, payload(i)),
  };
}

export type IdentityEvents = ReturnType<typeof createIdentityEvents>;
