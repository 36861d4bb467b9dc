/**
 * Resolves `zt-session` tokens to principals through the auth service, caching answers for a
 * few seconds. Cached entries are dropped as soon as an event says the API session or its
 * identity changed (logout, MFA completed or removed, demotion, disabling, a rename or new role
 * attributes), so none of these is served from cache.
 *
 * Requests that miss on the same token at once share one validation. A validation still under
 * way when such an event arrives serves only the requests that came before the event and is not
 * cached: requests after it validate again.
 */
import { createHash } from 'node:crypto';
import type { Bus, Subscription } from '@edge/bus';
import type { auth } from '@edge/proto';
import type { Clients } from '../clients.js';

export type Principal = auth.Principal__Output;

interface Entry {
  principal: Principal;
  until: number;
  /** The key of the session token alone, so forgetting a token drops its bearer variants. */
  tokenKey: string;
}

const MAX_ENTRIES = 50_000;

/** The cache of token → principal, with event-driven invalidation. */
export function createSessionCache(clients: Clients, bus: Bus, ttlMs = 5_000) {
  const byToken = new Map<string, Entry>();
  /** Validations under way, by cache key; emptied by every invalidation. */
  const pending = new Map<string, Promise<Principal>>();
  const subs: Subscription[] = [];
  const key = (token: string) => createHash('sha256').update(token).digest('base64url');

  const dropWhere = (pred: (p: Principal) => boolean) => {
    pending.clear();
    for (const [k, e] of byToken) if (pred(e.principal)) byToken.delete(k);
  };

  return {
    /** The principal of a token; throws the auth service's UNAUTHORIZED when it is not valid. */
    async resolve(token: string, bearerToken = ''): Promise<Principal> {
      // The bearer JWT may complete a secondary factor, so it is part of what is cached.
      const k = key(bearerToken ? `${token}\u0000${bearerToken}` : token);
      const hit = byToken.get(k);
      if (hit && hit.until > Date.now()) return hit.principal;
      const under = pending.get(k);
      if (under) return under;
      const flight: Promise<Principal> = Promise.resolve()
        .then(() => clients.auth.validateSession({ token, bearerToken }))
        .then((principal) => {
          // Cached only when no invalidation came meanwhile (it would have emptied `pending`).
          if (pending.get(k) === flight) {
            if (byToken.size >= MAX_ENTRIES) byToken.delete(byToken.keys().next().value!);
            byToken.set(k, { principal, until: Date.now() + ttlMs, tokenKey: key(token) });
          }
          return principal;
        })
        .finally(() => {
          if (pending.get(k) === flight) pending.delete(k);
        });
      pending.set(k, flight);
      return flight;
    },
    /**
     * Drops every principal of the identity this replica holds, for a change the caller made to
     * its own authenticators or MFA: its next request here sees it at once (other replicas learn
     * it from the auth service's event).
     */
    forgetIdentity(identityId: string) {
      dropWhere((p) => p.apiSession?.identityId === identityId);
    },
    forget(token: string) {
      pending.clear();
      const k = key(token);
      // Entries of the same session resolved with a bearer JWT go too.
      for (const [entryKey, e] of byToken) if (e.tokenKey === k) byToken.delete(entryKey);
    },
    async start() {
      subs.push(
        await bus.subscribe<{ id: string }>('edge.auth.api-session.*', async (m) => dropWhere((p) => p.apiSession?.id === m.data.id)),
        await bus.subscribe<{ identityId: string }>('edge.auth.mfa.*', async (m) => dropWhere((p) => p.apiSession?.identityId === m.data.identityId)),
        await bus.subscribe<{ id: string }>('edge.identity.identity.*', async (m) => dropWhere((p) => p.apiSession?.identityId === m.data.id)),
        // The auth service's read model of the identity took a change (name, admin, role
        // attributes...): principals resolved before it could answer with it go again.
        await bus.subscribe<{ identityId: string }>('edge.auth.principal.updated', async (m) => dropWhere((p) => p.apiSession?.identityId === m.data.identityId)),
        // A policy or signer decides for many identities at once; such changes are rare.
        await bus.subscribe('edge.auth.auth-policy.*', async () => dropWhere(() => true)),
        await bus.subscribe('edge.auth.external-jwt-signer.*', async () => dropWhere(() => true)),
      );
    },
    async stop() {
      await Promise.all(subs.splice(0).map((s) => s.unsubscribe()));
      pending.clear();
      byToken.clear();
    },
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
