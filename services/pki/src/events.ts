/**
 * What the pki service publishes (certificate authority and enrollment changes, recorded in the
 * transaction of the change and relayed after the commit, libs/outbox; subjects and payloads
 * declared in @edge/events) and consumes: a new identity gets the enrollments its created event
 * asks for, and an identity or router that is gone takes its enrollments with it. Consumers are
 * durable (JetStream) and idempotent; a sweep at start-up and a periodic reconciliation catch
 * any deletion lost (STYLE.md principle 9).
 */
import type { Bus, Subscription } from '@edge/bus';
import { fieldError, isZitiError } from '@edge/errors';
import {
  CA_DELETED, EDGE_ROUTER_DELETED, IDENTITY_CREATED, IDENTITY_DELETED, TRANSIT_ROUTER_DELETED, caSubject, enrollmentSubject,
  type CaChange, type CaDeletedEvent, type CaEvent, type ChangeKind, type EnrollmentAsk, type EnrollmentEvent, type IdentityCreatedEvent,
  type IdentityEvent, type Received, type RouterEvent,
} from '@edge/events';
import type { Logger } from '@edge/logging';
import type { Outbox } from '@edge/outbox';
import type { Enrollments } from './enrollments.js';
import type { EnrollmentPeers } from './peers/index.js';
import type { PkiDb, PkiKysely } from './store/db.js';
import type { EnrollmentStore } from './store/enrollment.js';

type Trx = PkiKysely;

/** Records certificate authority and enrollment changes in the transaction that makes them. */
export function createPkiEvents(outbox: Outbox<PkiDb>) {
  return {
    /** Runs a write and its events in one transaction; they are published after the commit. */
    transaction: <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => outbox.transaction(fn),
    caChanged: (trx: Trx, what: CaChange, id: string) => outbox.enqueue(trx, caSubject(what), { id } satisfies CaEvent),
    caDeleted: (trx: Trx, ca: { id: string; certPem: string }) => outbox.enqueue(trx, CA_DELETED, { id: ca.id, certPem: ca.certPem } satisfies CaDeletedEvent),
    /** One event per enrollment created, refreshed or deleted. */
    async enrollmentsChanged(trx: Trx, what: ChangeKind, enrollments: readonly EnrollmentEvent[]): Promise<void> {
      for (const e of enrollments) {
        await outbox.enqueue(trx, enrollmentSubject(what), { id: e.id, identityId: e.identityId, edgeRouterId: e.edgeRouterId, transitRouterId: e.transitRouterId } satisfies EnrollmentEvent);
      }
    },
  };
}

export type PkiEvents = ReturnType<typeof createPkiEvents>;

/** Consumer group of this service: one replica handles each message. */
export const CONSUMER_GROUP = 'pki';

/**
 * The enrollments an identity's created event asks for, each made unless it already exists
 * (its creator made it, or this event came before). An ask the pki service refuses (the
 * identity is gone, the CA unknown, …: a 4xx) is logged and dropped, since a retry cannot make
 * it right; anything else (a peer unreachable) is retried by redelivery.
 */
async function createAskedEnrollments(enrollments: Pick<Enrollments, 'createAsked'>, data: Received<IdentityCreatedEvent>, log: Logger): Promise<void> {
  const { id, enrollments: asks } = data;
  if (typeof id !== 'string' || id === '' || !Array.isArray(asks)) return;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  for (const ask of asks as Array<Received<EnrollmentAsk> | null>) {
    const method = ask?.method;
    try {
      if (typeof method !== 'string') throw fieldError('method', 'is required', null);
      const done = await enrollments.createAsked(id, { method, caId: str(ask?.caId), username: str(ask?.username) });
      if (done === 'created') log.info({ identityId: id, method }, 'created an enrollment the identity was created with');
    } catch (err) {
      if (!isZitiError(err) || err.status >= 500) throw err;
      log.warn({ identityId: id, method, code: err.code, cause: err.causeMessage }, 'enrollment asked for with an identity refused, skipped');
    }
  }
}

/** Starts the consumers; the caller unsubscribes them on stop. */
export async function startEnrollmentConsumers(bus: Bus, store: EnrollmentStore, enrollments: Pick<Enrollments, 'createAsked'>, log: Logger): Promise<Subscription[]> {
  const onDeleted = (subject: string, owner: (id: string) => Parameters<EnrollmentStore['deleteOf']>[0]) =>
    bus.consume<Received<IdentityEvent | RouterEvent>>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'deletion event without an id, ignored');
        return;
      }
      const removed = await store.deleteOf(owner(id));
      if (removed > 0) log.info({ subject: msg.subject, id, removed }, 'removed the enrollments of a deleted entity');
    });
  return [
    await bus.consume<Received<IdentityCreatedEvent>>(CONSUMER_GROUP, IDENTITY_CREATED, async (msg) => createAskedEnrollments(enrollments, msg.data ?? {}, log)),
    await onDeleted(IDENTITY_DELETED, (identityId) => ({ identityId })),
    await onDeleted(EDGE_ROUTER_DELETED, (edgeRouterId) => ({ edgeRouterId })),
    await onDeleted(TRANSIT_ROUTER_DELETED, (transitRouterId) => ({ transitRouterId })),
  ];
}

/** How the start-up sweep waits for the identity service, which may start after this one. */
const SWEEP_RETRY_MS = 2_000;
const SWEEP_ATTEMPTS = 30;

/**
 * Removes the enrollments of identities and routers the identity service no longer knows (their
 * deleted event was lost); how many went. Enrollments are pending ones only, so few.
 */
export async function sweepOrphans(store: Pick<EnrollmentStore, 'owners' | 'deleteOf'>, peers: Pick<EnrollmentPeers, 'existingIdentities' | 'existingRouters'>): Promise<number> {
  const { identityIds, edgeRouterIds, transitRouterIds } = await store.owners();
  const [identities, edge, transit] = await Promise.all([
    peers.existingIdentities(identityIds), peers.existingRouters('edge', edgeRouterIds), peers.existingRouters('transit', transitRouterIds),
  ]);
  let removed = 0;
  for (const id of identityIds.filter((i) => !identities.has(i))) removed += await store.deleteOf({ identityId: id });
  for (const id of edgeRouterIds.filter((i) => !edge.has(i))) removed += await store.deleteOf({ edgeRouterId: id });
  for (const id of transitRouterIds.filter((i) => !transit.has(i))) removed += await store.deleteOf({ transitRouterId: id });
  return removed;
}

/**
 * Runs {@link sweepOrphans} in the background at start-up, retried while the identity service
 * is not reachable yet. Returns the function that cancels it.
 */
export function scheduleOrphanSweep(store: EnrollmentStore, peers: EnrollmentPeers, log: Logger): () => void {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const attempt = async (n: number): Promise<void> => {
    if (cancelled) return;
    try {
      await sweepOrphans(store, peers);
    } catch (err) {
      if (cancelled) return;
      if (isZitiError(err) && err.code === 'UNAVAILABLE' && n < SWEEP_ATTEMPTS) {
        timer = setTimeout(() => void attempt(n + 1), SWEEP_RETRY_MS).unref();
        return;
      }
      log.warn({ err }, 'enrollment sweep at start-up failed');
    }
  };
  timer = setTimeout(() => void attempt(0), 0).unref();
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}
