/**
 * The identities of callers, as the identity service answers them, kept for `GET
 * /current-identity` so that a client asking for itself again is answered without a call.
 *
 * Every change of an identity is announced by its owner (`edge.identity.identity.*`: created,
 * updated, disabled, deleted, and the environment a client reported at login), and the event
 * drops the entry; the next request asks the owner, which answers the change. The event reaches
 * this gateway before the identity service answers the write that caused it (the outbox publishes
 * before the write returns), so an administrator's change is seen by the next request. A look-up
 * under way when such an event arrives is answered but not kept. When the connection to the bus
 * comes back after a loss (events may have been missed) every entry is dropped; an entry lives a
 * minute at most, which bounds what a lost event could leave, and no longer than a lockout it
 * shows.
 */
import type { Bus, Subscription } from '@edge/bus';
import { IDENTITY_EVENTS } from '@edge/events';
import type { identity } from '@edge/proto';
import type { Clients } from '../clients.js';

type Identity = identity.Identity__Output;

const MAX_ENTRIES = 50_000;

/**
 * When an identity as answered stops being what its owner would answer without any change: the
 * end of the lockout it shows (`disabled` ends by itself then), or never.
 */
export function lockoutEnd(i: Pick<Identity, 'disabled' | 'disabledUntil'>): number {
  const end = i.disabled && i.disabledUntil ? Date.parse(i.disabledUntil) : NaN;
  return Number.isNaN(end) ? Infinity : end;
}

/** The cache of identity id → identity, with event-driven invalidation. */
export function createIdentityCache(clients: Clients, bus: Bus, ttlMs = 60_000) {
  const entries = new Map<string, { identity: Identity; until: number }>();
  /** Look-ups under way, by id; an invalidation removes them so their answer is not kept. */
  const pending = new Map<string, Promise<Identity>>();
  const subs: Subscription[] = [];

  const drop = (id: string) => {
    entries.delete(id);
    pending.delete(id);
  };
  const dropAll = () => {
    entries.clear();
    pending.clear();
  };

  return {
    /** The identity; throws the identity service's NOT_FOUND when it is gone. */
    get(id: string): Promise<Identity> {
      const hit = entries.get(id);
      if (hit && hit.until > Date.now()) return Promise.resolve(hit.identity);
      const under = pending.get(id);
      if (under) return under;
      const flight: Promise<Identity> = clients.identity.getIdentity({ id }).then((found) => {
        if (pending.get(id) === flight) {
          if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
          entries.set(id, { identity: found, until: Math.min(Date.now() + ttlMs, lockoutEnd(found)) });
        }
        return found;
      }).finally(() => {
        if (pending.get(id) === flight) pending.delete(id);
      });
      pending.set(id, flight);
      return flight;
    },
    async start() {
      bus.onReconnect(dropAll);
      subs.push(await bus.subscribe<{ id: string }>(IDENTITY_EVENTS, async (m) => drop(m.data.id)));
    },
    async stop() {
      await Promise.all(subs.splice(0).map((s) => s.unsubscribe()));
      dropAll();
    },
  };
}

/** Where routes get a caller's identity: the cache, or the identity service at every request. */
export type IdentitySource = Pick<ReturnType<typeof createIdentityCache>, 'get'>;

/** An identity source that asks the identity service every time (no cache). */
export const uncachedIdentities = (clients: Clients): IdentitySource => ({ get: (id) => clients.identity.getIdentity({ id }) });
