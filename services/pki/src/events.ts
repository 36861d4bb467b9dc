/**
 * What the pki service publishes (certificate authority and enrollment changes, recorded in the
 * transaction of the change and relayed after the commit, libs/outbox) and consumes: an identity or router that
 * is gone takes its enrollments with it. Consumers are durable (JetStream) and idempotent; a
 * sweep at start-up and a periodic reconciliation catch anything lost (STYLE.md principle 9).
 */
import type { Bus, Subscription } from '@edge/bus';
import { isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { Outbox } from '@edge/outbox';
import type { EnrollmentPeers } from './peers/index.js';
import type { PkiDb, PkiKysely } from './store/db.js';
import type { EnrollmentStore } from './store/enrollment.js';

/** Published after a CA was created, updated or verified; payload `{id}` (gateways reload the CAs they trust). */
export const CA_CHANGED = (what: 'created' | 'updated' | 'verified') => `edge.pki.ca.${what}`;
/** Published after a CA was deleted; payload `{id, certPem}` (auth removes what it issued). */
export const CA_DELETED = 'edge.pki.ca.deleted';

/**
 * Published after an enrollment was created, refreshed (new token and expiry) or deleted
 * (explicitly, redeemed, or with its owner or CA); payload {@link EnrollmentRef}, so caches of an
 * identity's or router's outstanding enrollments can drop that owner's.
 */
export const ENROLLMENT_CHANGED = (what: EnrollmentChange) => `edge.pki.enrollment.${what}`;

/** What happened to an enrollment. */
export type EnrollmentChange = 'created' | 'updated' | 'deleted';

/** An enrollment as its events name it: its id and its owner (the ids of other kinds null). */
export interface EnrollmentRef {
  id: string;
  identityId: string | null;
  edgeRouterId: string | null;
  transitRouterId: string | null;
}

type Trx = PkiKysely;

/** Records certificate authority and enrollment changes in the transaction that makes them. */
export function createPkiEvents(outbox: Outbox<PkiDb>) {
  return {
    /** Runs a write and its events in one transaction; they are published after the commit. */
    transaction: <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => outbox.transaction(fn),
    caChanged: (trx: Trx, what: 'created' | 'updated' | 'verified', id: string) => outbox.enqueue(trx, CA_CHANGED(what), { id }),
    caDeleted: (trx: Trx, ca: { id: string; certPem: string }) => outbox.enqueue(trx, CA_DELETED, { id: ca.id, certPem: ca.certPem }),
    /** One event per enrollment created, refreshed or deleted. */
    async enrollmentsChanged(trx: Trx, what: EnrollmentChange, enrollments: readonly EnrollmentRef[]): Promise<void> {
      for (const e of enrollments) {
        await outbox.enqueue(trx, ENROLLMENT_CHANGED(what), { id: e.id, identityId: e.identityId, edgeRouterId: e.edgeRouterId, transitRouterId: e.transitRouterId });
      }
    },
  };
}

export type PkiEvents = ReturnType<typeof createPkiEvents>;

/** Published by the identity service; payload `{id}`. */
export const IDENTITY_DELETED = 'edge.identity.identity.deleted';
/** Published by the identity service per router kind; payload `{id, kind}`. */
export const ROUTER_DELETED = (kind: 'edge' | 'transit') => `edge.identity.${kind}-router.deleted`;
/** Consumer group of this service: one replica handles each message. */
export const CONSUMER_GROUP = 'pki';

/** Starts the consumers; the caller unsubscribes them on stop. */
export async function startEnrollmentConsumers(bus: Bus, store: EnrollmentStore, log: Logger): Promise<Subscription[]> {
  const onDeleted = (subject: string, owner: (id: string) => Parameters<EnrollmentStore['deleteOf']>[0]) =>
    bus.consume<{ id?: unknown }>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'deletion event without an id, ignored');
        return;
      }
      const removed = await store.deleteOf(owner(id));
      if (removed > 0) log.info({ subject: msg.subject, id, removed }, 'removed the enrollments of a deleted entity');
    });
  return [
    await onDeleted(IDENTITY_DELETED, (identityId) => ({ identityId })),
    await onDeleted(ROUTER_DELETED('edge'), (edgeRouterId) => ({ edgeRouterId })),
    await onDeleted(ROUTER_DELETED('transit'), (transitRouterId) => ({ transitRouterId })),
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
