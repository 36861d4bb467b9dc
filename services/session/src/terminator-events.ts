/**
 * Terminators end with their router (edge or transit, deleted in the identity service) and
 * their service (deleted in the policy service; that event's consumer is shared with sessions,
 * see events.ts). Consumers are durable and idempotent; the start-up sweep, a periodic
 * reconciliation and the integrity check catch whatever was deleted while an event was lost.
 */
import type { Bus, Subscription } from '@edge/bus';
import { EDGE_ROUTER_DELETED, TRANSIT_ROUTER_DELETED, type Received, type RouterEvent } from '@edge/events';
import type { Logger } from '@edge/logging';
import type { Terminator } from './domain/terminator.js';
import { CONSUMER_GROUP } from './events.js';
import type { SessionPeers } from './peers/index.js';
import type { TerminatorRecords } from './store/terminator.js';

/** The subjects of routers deleted, whose terminators go with them. */
const ROUTER_DELETED = [EDGE_ROUTER_DELETED, TRANSIT_ROUTER_DELETED];

/** Starts the router consumers; the caller unsubscribes them on stop. */
export async function startTerminatorConsumers(bus: Bus, records: TerminatorRecords, log: Logger): Promise<Subscription[]> {
  return Promise.all(ROUTER_DELETED.map((subject) =>
    bus.consume<Received<RouterEvent>>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'event without an id, ignored');
        return;
      }
      const ended = await records.deleteOf({ routerId: id });
      if (ended > 0) log.info({ subject: msg.subject, routerId: id, ended }, 'terminators deleted with their router');
    })));
}

type Lookups = Pick<SessionPeers, 'existingServices' | 'existingRouters'>;

/** Terminators whose service or router no longer exists, each with why (one look-up per owner for the batch). */
export async function staleTerminators(peers: Lookups, terminators: readonly Terminator[]): Promise<Array<{ id: string; why: string }>> {
  const [services, routers] = await Promise.all([
    peers.existingServices(terminators.map((t) => t.serviceId)), peers.existingRouters(terminators.map((t) => t.routerId)),
  ]);
  return terminators.flatMap((t) => {
    if (!services.has(t.serviceId)) return [{ id: t.id, why: `service ${t.serviceId} does not exist` }];
    if (!routers.has(t.routerId)) return [{ id: t.id, why: `router ${t.routerId} does not exist` }];
    return [];
  });
}

const PAGE = 500;

/**
 * One step of a reconciliation of terminators: the next page after `cursor`, those whose service
 * or router is gone deleted. Returns where the next step starts, or undefined after the last page.
 */
export function createTerminatorReconcile(records: Pick<TerminatorRecords, 'page' | 'deleteOf'>, peers: Lookups, log: Logger) {
  return async function step(cursor: string | undefined): Promise<string | undefined> {
    const page = await records.page(cursor ?? '', PAGE);
    const ended = await records.deleteOf({ ids: (await staleTerminators(peers, page)).map((s) => s.id) });
    if (ended > 0) log.info({ ended }, 'terminators of deleted services or routers deleted by reconciliation');
    return page.length < PAGE ? undefined : page.at(-1)!.id;
  };
}
