/**
 * The events the identity service publishes (subjects and payloads declared in @edge/events).
 * Each event is recorded in the transaction of the change it announces (the stores call these
 * inside it) and relayed to the bus after the commit (libs/outbox). Consumers must be
 * idempotent: delivery is at-least-once.
 */
import type { Kysely } from 'kysely';
import {
  IDENTITY_CREATED, IDENTITY_DELETED, IDENTITY_DISABLED, IDENTITY_ENVIRONMENT, IDENTITY_UPDATED, SERVICE_CONFIGS_CHANGED, routerSubject,
  type EnrollmentAsk, type IdentityCreatedEvent, type IdentityEnvironmentEvent, type IdentityEvent, type RouterEvent, type ServiceConfigsEvent,
} from '@edge/events';
import type { Outbox } from '@edge/outbox';
import type { Identity } from './domain/identity.js';
import type { Router } from './domain/router.js';
import type { IdentityDb } from './store/db.js';

/** The payload of a router's events; a deletion gives the time it happened as `updatedAt`. */
export function routerPayload(r: Router, updatedAt = r.updatedAt): RouterEvent {
  return {
    id: r.id, kind: r.kind, name: r.name, roleAttributes: r.roleAttributes, disabled: r.disabled, isTunnelerEnabled: r.isTunnelerEnabled,
    hostname: r.hostname, cost: r.cost, noTraversal: r.noTraversal, supportedProtocols: r.supportedProtocols, appData: r.appData,
    createdAt: r.createdAt.toISOString(), updatedAt: updatedAt.toISOString(),
  };
}

/** The fields of an identity an event carries, `updatedAt` taken from the identity unless given. */
type EventSource = Omit<IdentityEvent, 'disabledUntil' | 'updatedAt'> & { disabledUntil: Date | null; updatedAt: Date };

function payload(i: EventSource, updatedAt = i.updatedAt): IdentityEvent {
  return {
    id: i.id, name: i.name, typeId: i.typeId, isAdmin: i.isAdmin, isDefaultAdmin: i.isDefaultAdmin, disabled: i.disabled,
    disabledUntil: i.disabledUntil?.toISOString() ?? null, roleAttributes: i.roleAttributes, authPolicyId: i.authPolicyId,
    externalId: i.externalId, permissions: i.permissions, updatedAt: updatedAt.toISOString(),
  };
}

/** When a deletion happened: now, and never before the last change of what was deleted. */
const deletedAt = (i: { updatedAt: Date }) => new Date(Math.max(Date.now(), i.updatedAt.getTime() + 1));

/** The identity of a router, as its events describe it once its row is gone. */
export function routerIdentity(r: Router): EventSource {
  return {
    id: r.id, name: r.name, typeId: 'Router', isAdmin: false, isDefaultAdmin: false, disabled: false, disabledUntil: null, roleAttributes: [],
    authPolicyId: 'default', externalId: null, permissions: [], updatedAt: r.updatedAt,
  };
}

type Trx = Kysely<IdentityDb>;

/** Records identity and router changes in the transaction that makes them. */
export function createIdentityEvents(outbox: Outbox<IdentityDb>) {
  return {
    /** Runs a write and its events in one transaction; they are published after the commit. */
    transaction: <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => outbox.transaction(fn),
    /** The enrollments asked for go with the identity, for the pki service to make any its creator did not. */
    created: (trx: Trx, i: Identity, enrollments: EnrollmentAsk[] = []) =>
      outbox.enqueue(trx, IDENTITY_CREATED, { ...payload(i), ...(enrollments.length > 0 ? { enrollments } : {}) } satisfies IdentityCreatedEvent),
    updated: (trx: Trx, i: Identity) => outbox.enqueue(trx, IDENTITY_UPDATED, payload(i)),
    deleted: (trx: Trx, i: Identity | EventSource) => outbox.enqueue(trx, IDENTITY_DELETED, payload(i, deletedAt(i))),
    disabled: (trx: Trx, i: Identity) => outbox.enqueue(trx, IDENTITY_DISABLED, payload(i)),
    environment: (trx: Trx, id: string) => outbox.enqueue(trx, IDENTITY_ENVIRONMENT, { id } satisfies IdentityEnvironmentEvent),
    serviceConfigsChanged: (trx: Trx, identityId: string) => outbox.enqueue(trx, SERVICE_CONFIGS_CHANGED, { identityId } satisfies ServiceConfigsEvent),
    routerCreated: (trx: Trx, r: Router) => outbox.enqueue(trx, routerSubject(r.kind, 'created'), routerPayload(r)),
    routerUpdated: (trx: Trx, r: Router) => outbox.enqueue(trx, routerSubject(r.kind, 'updated'), routerPayload(r)),
    routerDeleted: (trx: Trx, r: Router) => outbox.enqueue(trx, routerSubject(r.kind, 'deleted'), routerPayload(r, deletedAt(r))),
  };
}

export type IdentityEvents = ReturnType<typeof createIdentityEvents>;
