/**
 * When the events of acknowledged logouts and deletions took effect: the rows they must remove
 * (the sessions of a logged-out API session; the sessions and authenticators of a deleted
 * identity) are watched in the owners' schemas directly, past the relay the run cuts, so the
 * moment of delivery is seen even while the gateway or a service is away.
 */
import pg from 'pg';
import type { Ledger } from './ledger.js';

const POLL_MS = 200;

/** One expected effect: rows that must go, the phase that asked, and when it was acknowledged. */
export interface Effect {
  what: string;
  phase: string;
  ackedAt: number;
  /** When the rows were seen gone; undefined while they remain. */
  seenAt?: number;
}

/** Watches the ledger's logouts and deletions until `stop`. */
export function watchDelivery(databaseUrl: string, prefix: string, ledger: Ledger) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const effects = new Map<string, Effect & { sessionIds: string[]; identityId?: string }>();
  let stopped = false;

  const track = () => {
    for (const [token, e] of ledger.loggedOut) {
      if (!effects.has(token)) effects.set(token, { what: `sessions of logged-out API session ${token.slice(0, 8)}…`, phase: e.phase, ackedAt: e.at, sessionIds: e.value });
    }
    for (const e of ledger.deleted) {
      if (!effects.has(e.value.id)) effects.set(e.value.id, { what: `sessions and authenticators of deleted identity ${e.value.id}`, phase: e.phase, ackedAt: e.at, sessionIds: e.value.sessionIds, identityId: e.value.id });
    }
  };

  const poll = async () => {
    track();
    const pending = [...effects.values()].filter((e) => e.seenAt === undefined);
    if (pending.length === 0) return;
    const sessions = new Set((await pool.query<{ id: string }>(`select id from ${prefix}_session.sessions where id = any($1)`, [pending.flatMap((e) => e.sessionIds)])).rows.map((r) => r.id));
    const owners = pending.flatMap((e) => (e.identityId ? [e.identityId] : []));
    const authenticators = new Set((await pool.query<{ identity_id: string }>(`select identity_id from ${prefix}_auth.authenticators where identity_id = any($1)`, [owners])).rows.map((r) => r.identity_id));
    const now = Date.now();
    for (const e of pending) {
      if (e.sessionIds.every((id) => !sessions.has(id)) && !(e.identityId && authenticators.has(e.identityId))) e.seenAt = now;
    }
  };

  const loop = (async () => {
    while (!stopped) {
      await poll().catch(() => undefined);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  })();

  return {
    /** The effects asked for in `phase`, as far as seen now. */
    effects(phase: string): Effect[] {
      track();
      return [...effects.values()].filter((e) => e.phase === phase);
    },
    async stop() {
      stopped = true;
      await loop;
      await pool.end();
    },
  };
}

export type DeliveryWatch = ReturnType<typeof watchDelivery>;
