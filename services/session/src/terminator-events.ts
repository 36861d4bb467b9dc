/**
 * Terminators end with their router (edge or transit, deleted in the identity service) and
 * their service (deleted in the policy service; that event's consumer is shared with sessions,
 * see events.ts). Consumers are durable and idempotent; the start-up sweep and the integrity
 * check catch whatever was deleted while no replica ran.
 */
import type { Bus, Subscription } from '@edge/bus';
import type { Logger } from '@edge/logging';
import type { Terminator } from './domain/terminator.js';
import { CONSUMER_GROUP } from './events.js';
import type { SessionPeers } from './peers.js';
import type { TerminatorRecords } from './terminator-store.js';

export const TerminatorSubjects = {
  routerDeleted: ['edge.identity.edge-router.deleted', 'edge.identity.transit-router.deleted'],
} as const;

/** Starts the router consumers; the caller unsubscribes them on stop. */
export async function startTerminatorConsumers(bus: Bus, records: TerminatorRecords, log: Logger): Promise<Subscription[]> {
  return Promise.all(TerminatorSubjects.routerDeleted.map((subject) =>
    bus.consume<{ id?: unknown }>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'event without an id, ignored');
        return;
      }
      const ended = await records.deleteOf({ routerId: id });
      if (ended > 0) log.info({ subject: msg.subject, routerId: id, ended }, 'terminators deleted with their router');
    })));
}

/** Terminators whose service or router no longer exists, each with why. */
export async function staleTerminators(peers: Pick<SessionPeers, 'service' | 'router'>, terminators: Terminator[]): Promise<Array<{ id: string; why: string }>> {
  const services = new Map<string, boolean>();
  const routers = new Map<string, boolean>();
  const stale: Array<{ id: string; why: string }> = [];
  for (const t of terminators) {
    if (!services.has(t.serviceId)) services.set(t.serviceId, (await peers.service(t.serviceId)) !== undefined);
    if (!services.get(t.serviceId)) {
      stale.push({ id: t.id, why: `service ${t.serviceId} does not exist` });
      continue;
    }
    if (!routers.has(t.routerId)) routers.set(t.routerId, (await peers.router(t.routerId)) !== undefined);
    if (!routers.get(t.routerId)) stale.push({ id: t.id, why: `router ${t.routerId} does not exist` });
  }
  return stale;
}

/** Deletes the terminators whose service or router went while no replica ran. */
export async function sweepTerminators(records: TerminatorRecords, peers: Pick<SessionPeers, 'service' | 'router'>, log: Logger): Promise<void> {
  const ended = await records.deleteOf({ ids: (await staleTerminators(peers, await records.all())).map((s) => s.id) });
  if (ended > 0) log.info({ ended }, 'terminators deleted by the start-up sweep');
}
