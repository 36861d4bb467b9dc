/**
 * What the pki service consumes: an identity or router that is gone takes its enrollments with
 * it. Consumers are durable (JetStream) and idempotent; a sweep at start-up catches anything
 * lost while no replica ran (STYLE.md principle 9).
 */
import type { Bus, Subscription } from '@edge/bus';
import { isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { EnrollmentStore } from './enrollment-store.js';
import type { EnrollmentPeers } from './peers.js';

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
 * Removes, in the background, the enrollments of identities the identity service no longer
 * knows; retried while that service is not reachable yet. Routers are left to their events (the
 * identity service has no batch read of routers). Returns the function that cancels it.
 */
export function scheduleOrphanSweep(store: EnrollmentStore, peers: EnrollmentPeers, log: Logger): () => void {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const attempt = async (n: number): Promise<void> => {
    if (cancelled) return;
    try {
      const { identityIds } = await store.owners();
      const existing = await peers.existingIdentities(identityIds);
      for (const id of identityIds.filter((i) => !existing.has(i))) await store.deleteOf({ identityId: id });
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
