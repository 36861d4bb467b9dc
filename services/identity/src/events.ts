/**
 * Subjects the identity service publishes. Each event is recorded in the transaction of the
 * change it announces (the stores call these inside it) and relayed to the bus after the commit
 * (libs/outbox). Consumers must be idempotent: delivery is at-least-once.
 */
import type { Kysely } from 'kysely';
import type { Outbox } from '@edge/outbox';
import type { Identity } from './domain/identity.js';
import type { Router } from './domain/router.js';
import type { IdentityDb } from './store/db.js';

export const Subjects = {
  identityCreated: 'edge.identity.identity.created',
  identityUpdated: 'edge.identity.identity.updated',
  identityDeleted: 'edge.identity.identity.deleted',
  routerCreated: (kind: string) => `edge.identity.${kind}-router.created`,
  routerUpdated: (kind: string) => `edge.identity.${kind}-router.updated`,
  routerDeleted: (kind: string) => `edge.identity.${kind}-router.deleted`,
  /** Its API sessions must end (the auth service consumes it durably). */
  identityDisabled: 'edge.identity.identity.disabled',
  /** A client reported its environment (envInfo, sdkInfo) at login; payload `{ id }`, for caches of the identity. */
  identityEnvironment: 'edge.identity.identity.environment',
  /**
   * An identity's own service configs changed; payload `{ identityId }`. Caches of what a
   * client's service list shows hear it (the gateway's held pages and markers).
   */
  serviceConfigsChanged: 'edge.identity.service-configs.changed',
} as const;

/**
 * What other services learn about an edge or transit router from its events: enough for the
 * policy service to keep its read model of edge routers (what sessions render of them).
 * `updatedAt` orders the events of one router as for identities; a deletion carries the time it
 * happened.
 */
export interface RouterEvent {
  id: string;
  kind: string;
  name: string;
  roleAttributes: string[];
  disabled: boolean;
  isTunnelerEnabled: boolean;
  hostname: string;
  cost: number;
  noTraversal: boolean;
  supportedProtocols: unknown;
  appData: unknown;
  /** ISO time the router was created. */
  createdAt: string;
  /** ISO time of the change announced. */
  updatedAt: string;
}

export function routerPayload(r: Router, updatedAt = r.updatedAt): RouterEvent {
  return {
    id: r.id, kind: r.kind, name: r.name, roleAttributes: r.roleAttributes, disabled: r.disabled, isTunnelerEnabled: r.isTunnelerEnabled,
    hostname: r.hostname, cost: r.cost, noTraversal: r.noTraversal, supportedProtocols: r.supportedProtocols, appData: r.appData,
    createdAt: r.createdAt.toISOString(), updatedAt: updatedAt.toISOString(),
  };
}

/**
 * What other services learn about an identity from its events: enough for the auth service to
 * keep its read model of identities (login and API session validation never ask this service).
 * `updatedAt` orders the events of one identity: a consumer keeps the newest it has seen, so a
 * late older event changes nothing; a deletion carries the time it happened.
 */
export interface IdentityEvent {
  id: string;
  name: string;
  typeId: string;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  /** Set by an admin or a lockout; a lockout ends by itself at `disabledUntil`. */
  disabled: boolean;
  /** ISO time a lockout ends; null: until enabled (or not disabled). */
  disabledUntil: string | null;
  roleAttributes: string[];
  authPolicyId: string;
  externalId: string | null;
  permissions: string[];
  /** ISO time of the change announced. */
  updatedAt: string;
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
    created: (trx: Trx, i: Identity) => outbox.enqueue(trx, Subjects.identityCreated, payload(i)),
    updated: (trx: Trx, i: Identity) => outbox.enqueue(trx, Subjects.identityUpdated, payload(i)),
    deleted: (trx: Trx, i: Identity | EventSource) => outbox.enqueue(trx, Subjects.identityDeleted, payload(i, deletedAt(i))),
    disabled: (trx: Trx, i: Identity) => outbox.enqueue(trx, Subjects.identityDisabled, payload(i)),
    environment: (trx: Trx, id: string) => outbox.enqueue(trx, Subjects.identityEnvironment, { id }),
    serviceConfigsChanged: (trx: Trx, identityId: string) => outbox.enqueue(trx, Subjects.serviceConfigsChanged, { identityId }),
    routerCreated: (trx: Trx, r: Router) => outbox.enqueue(trx, Subjects.routerCreated(r.kind), routerPayload(r)),
    routerUpdated: (trx: Trx, r: Router) => outbox.enqueue(trx, Subjects.routerUpdated(r.kind), routerPayload(r)),
    routerDeleted: (trx: Trx, r: Router) => outbox.enqueue(trx, Subjects.routerDeleted(r.kind), routerPayload(r, deletedAt(r))),
  };
}

export type IdentityEvents = ReturnType<typeof createIdentityEvents>;
