/**
 * What the identity service publishes: identities, edge and transit routers, and the identities'
 * own service configs.
 */
import { changesOf, eventsOf, subject, CHANGE_KINDS, type ChangeKind } from './subject.js';

/**
 * What other services learn about an identity from its events: enough for the auth service to
 * keep its read model of identities (login and API session validation never ask the identity
 * service). `updatedAt` orders the events of one identity: a consumer keeps the newest it has
 * seen, so a late older event changes nothing; a deletion carries the time it happened.
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

/** The methods of the enrollments an identity may be created with, one of each at most. */
export const ENROLLMENT_ASK_METHODS = ['ott', 'ottca', 'updb'] as const;

/** An enrollment an identity was created with (identityCreate.enrollment), as the pki service makes it. */
export interface EnrollmentAsk {
  method: (typeof ENROLLMENT_ASK_METHODS)[number];
  /** The CA of an ottca enrollment. */
  caId?: string;
  /** The username of a updb enrollment. */
  username?: string;
}

/**
 * An identity created: {@link IdentityEvent} and the enrollments it was created with. Its creator
 * asks the pki service for them at once; the pki service also makes any still missing from this
 * event, so an identity whose creator stopped between the two calls still gets them.
 */
export interface IdentityCreatedEvent extends IdentityEvent {
  /** Absent or empty: none asked for (and none made from this event). */
  enrollments?: EnrollmentAsk[];
}

/** The identity whose reported environment changed. */
export interface IdentityEnvironmentEvent {
  id: string;
}

/** The identity whose own service configs changed. */
export interface ServiceConfigsEvent {
  identityId: string;
}

/** The kinds of router, by the token that names them in a subject (`edge-router`, `transit-router`). */
export type RouterKind = 'edge' | 'transit';

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

/** Published when an identity is created; payload {@link IdentityCreatedEvent}. */
export const IDENTITY_CREATED = subject('identity', 'identity', 'created');
/** Published when an identity changed (enabled included); payload {@link IdentityEvent}. */
export const IDENTITY_UPDATED = subject('identity', 'identity', 'updated');
/** Published when an identity (or a router's identity) is deleted; payload {@link IdentityEvent}, `updatedAt` the time of the deletion. */
export const IDENTITY_DELETED = subject('identity', 'identity', 'deleted');
/** Published when an identity is disabled (lockout or admin): its API sessions must end; payload {@link IdentityEvent}. */
export const IDENTITY_DISABLED = subject('identity', 'identity', 'disabled');
/** Published when a client reported its environment (envInfo, sdkInfo) at login; payload {@link IdentityEnvironmentEvent}, for caches of the identity. */
export const IDENTITY_ENVIRONMENT = subject('identity', 'identity', 'environment');

/**
 * Published when an identity's own service configs changed; payload {@link ServiceConfigsEvent}.
 * Caches of what a client's service list shows hear it (the gateway's held pages and markers).
 */
export const SERVICE_CONFIGS_CHANGED = subject('identity', 'service-configs', 'changed');

/**
 * Published when an edge or transit router is created, updated or deleted:
 * `edge.identity.<kind>-router.<change>`; payload {@link RouterEvent}, `updatedAt` the time of
 * the deletion for a deleted one.
 */
export const routerSubject = <K extends RouterKind, C extends ChangeKind>(kind: K, change: C) => subject('identity', `${kind}-router`, change);
/** Published when an edge router is created; payload {@link RouterEvent}. */
export const EDGE_ROUTER_CREATED = routerSubject('edge', 'created');
/** Published when an edge router is updated; payload {@link RouterEvent}. */
export const EDGE_ROUTER_UPDATED = routerSubject('edge', 'updated');
/** Published when an edge router is deleted; payload {@link RouterEvent}. */
export const EDGE_ROUTER_DELETED = routerSubject('edge', 'deleted');
/** Published when a transit router is deleted; payload {@link RouterEvent}. */
export const TRANSIT_ROUTER_DELETED = routerSubject('transit', 'deleted');

/** Every event of identities (one token after the entity). */
export const IDENTITY_EVENTS = eventsOf('identity', 'identity');
/** Everything published under identities. */
export const IDENTITY_CHANGES = changesOf('identity', 'identity');
/** Everything published under edge routers. */
export const EDGE_ROUTER_CHANGES = changesOf('identity', 'edge-router');
/** Everything published under the identities' own service configs. */
export const SERVICE_CONFIGS_CHANGES = changesOf('identity', 'service-configs');

/** Every subject the identity service publishes. */
export const IDENTITY_SERVICE_SUBJECTS: readonly string[] = [
  IDENTITY_CREATED, IDENTITY_UPDATED, IDENTITY_DELETED, IDENTITY_DISABLED, IDENTITY_ENVIRONMENT, SERVICE_CONFIGS_CHANGED,
  ...(['edge', 'transit'] as const).flatMap((k) => CHANGE_KINDS.map((c) => routerSubject(k, c))),
];

/** Every pattern consumers of the identity service's events subscribe to. */
export const IDENTITY_SERVICE_PATTERNS: readonly string[] = [IDENTITY_EVENTS, IDENTITY_CHANGES, EDGE_ROUTER_CHANGES, SERVICE_CONFIGS_CHANGES];
