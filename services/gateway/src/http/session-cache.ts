/**
 * Resolves `zt-session` tokens to principals through the auth service, caching answers for up to
 * a minute, never past the API session's expiry. Cached entries are dropped as soon as an event
 * says the API session or its identity changed (logout, MFA completed or removed, demotion,
 * disabling, a rename or new role attributes, authenticators), so none of these is served from
 * cache; when the connection to the bus comes back after a loss (events may have been missed)
 * every entry is dropped. The lifetime only bounds what an event lost otherwise would leave.
 *
 * An identity event reaches this gateway before (or while) the auth service applies it to its
 * read model, so the principal asked for right after it could still be the older version. The
 * event's `updatedAt` is kept as the identity's floor for a while: a principal of an older
 * version is asked for again with that floor, which makes the auth service take the identity
 * from its owner, and only then cached. A change is thus seen by the first request after its
 * event arrived, not after the auth service caught up.
 *
 * Requests that miss on the same token at once share one validation. A validation still under
 * way when such an event arrives serves only the requests that came before the event and is not
 * cached: requests after it validate again.
 *
 * A token in use is validated again ahead of its entry's end: a request in the last sixth of the
 * lifetime is answered from the entry while a validation runs in the background, whose answer
 * replaces the entry (a refusal drops it). So a client's requests do not all wait for a
 * validation once a minute, nor do the clients that logged in together all at the same moment.
 * An entry ended by its API session's expiry is not validated ahead.
 */
import { createHash } from 'node:crypto';
import type { Bus, Subscription } from '@edge/bus';
import {
  API_SESSION_DELETED, API_SESSION_UPDATED, AUTH_POLICY_EVENTS, EXTERNAL_JWT_SIGNER_EVENTS, IDENTITY_ENVIRONMENT, IDENTITY_EVENTS, MFA_EVENTS,
  PRINCIPAL_UPDATED,
} from '@edge/events';
import { isZitiError } from '@edge/errors';
import type { auth } from '@edge/proto';
import type { Clients } from '../clients.js';

export type Principal = auth.Principal__Output;

interface Entry {
  principal: Principal;
  until: number;
  /** From when a request validates the token again in the background (never: Infinity). */
  refreshFrom: number;
  /** The key of the session token alone, so forgetting a token drops its bearer variants. */
  tokenKey: string;
}

const MAX_ENTRIES = 50_000;
/** Floors above this many are swept of those older than the cache lifetime. */
const SWEEP_FLOORS = 10_000;

/**
 * Until when a principal may be served from cache (`ttlMs` from now, and not past its session's
 * expiry), and from when it is validated ahead (the last sixth of `ttlMs`; never when the
 * session's expiry ends it first).
 */
function lifetime(principal: Principal, ttlMs: number): { until: number; refreshFrom: number } {
  const now = Date.now();
  const expires = Date.parse(principal.apiSession?.expiresAt ?? '');
  if (Number.isFinite(expires) && expires < now + ttlMs) return { until: expires, refreshFrom: Infinity };
  return { until: now + ttlMs, refreshFrom: now + ttlMs - ttlMs / 6 };
}

/** The cache of token → principal, with event-driven invalidation. */
export function createSessionCache(clients: Clients, bus: Bus, ttlMs = 60_000) {
  const byToken = new Map<string, Entry>();
  /**
   * The cache keys of each token (`t:<key>`, its bearer variants included), API session (`s:<id>`)
   * and identity (`i:<id>`), so an event drops its entries without a scan.
   */
  const keysOf = new Map<string, Set<string>>();
  /** Validations under way, by cache key; emptied by every invalidation. */
  const pending = new Map<string, Promise<Principal>>();
  /** By identity id: the newest version an identity event announced, and when it was heard (ms). */
  const floors = new Map<string, { version: number; heard: number }>();
  const subs: Subscription[] = [];
  const key = (token: string) => createHash('sha256').update(token).digest('base64url');
  const owners = (e: Entry) => [`t:${e.tokenKey}`, `s:${e.principal.apiSession?.id ?? ''}`, `i:${e.principal.apiSession?.identityId ?? ''}`];

  const put = (k: string, e: Entry) => {
    remove(k);
    byToken.set(k, e);
    for (const o of owners(e)) {
      let keys = keysOf.get(o);
      if (!keys) keysOf.set(o, (keys = new Set()));
      keys.add(k);
    }
  };
  function remove(k: string) {
    const e = byToken.get(k);
    if (!e) return;
    byToken.delete(k);
    for (const o of owners(e)) {
      const keys = keysOf.get(o);
      keys?.delete(k);
      if (keys?.size === 0) keysOf.delete(o);
    }
  }
  /** Drops the entries of a token, API session or identity (and every validation under way). */
  const drop = (owner: string) => {
    pending.clear();
    for (const k of [...(keysOf.get(owner) ?? [])]) remove(k);
  };
  const dropAll = () => {
    pending.clear();
    byToken.clear();
    keysOf.clear();
  };
  const dropSession = (id: string) => drop(`s:${id}`);
  const dropIdentity = (id: string) => drop(`i:${id}`);

  const raiseFloor = (id: string, updatedAt: unknown) => {
    const version = typeof updatedAt === 'string' ? Date.parse(updatedAt) : NaN;
    if (!Number.isFinite(version)) return;
    const now = Date.now();
    const known = floors.get(id);
    floors.delete(id); // re-inserted last: the map stays in the order floors were heard
    floors.set(id, { version: Math.max(version, known?.version ?? 0), heard: now });
    if (floors.size > SWEEP_FLOORS) {
      for (const [k, f] of floors) {
        if (f.heard > now - ttlMs) break;
        floors.delete(k);
      }
    }
  };
  /**
   * The floor (RFC 3339) `principal` is older than, if any. A principal at or above its floor
   * lifts it: the auth service's model has caught up with that version.
   */
  const floorAbove = (principal: Principal): string | undefined => {
    const id = principal.apiSession?.identityId ?? '';
    const f = floors.get(id);
    if (!f) return undefined;
    const version = Date.parse(principal.identityUpdatedAt);
    // Without a version (an older auth service) there is nothing to compare.
    if (f.heard <= Date.now() - ttlMs || Number.isNaN(version) || version >= f.version) {
      floors.delete(id);
      return undefined;
    }
    return new Date(f.version).toISOString();
  };

  /** Validates the token, shared by the requests meanwhile, and caches the answer if no invalidation came. */
  const validate = (k: string, token: string, bearerToken: string): Promise<Principal> => {
    const flight: Promise<Principal> = Promise.resolve()
      .then(() => clients.auth.validateSession({ token, bearerToken }))
      .then((principal) => {
        const floor = floorAbove(principal);
        return floor === undefined ? principal : clients.auth.validateSession({ token, bearerToken, minIdentityUpdatedAt: floor });
      })
      .then((principal) => {
        // Cached only when no invalidation came meanwhile (it would have emptied `pending`).
        if (pending.get(k) === flight) {
          if (byToken.size >= MAX_ENTRIES && !byToken.has(k)) remove(byToken.keys().next().value!);
          put(k, { principal, ...lifetime(principal, ttlMs), tokenKey: key(token) });
        }
        return principal;
      })
      .finally(() => {
        if (pending.get(k) === flight) pending.delete(k);
      });
    pending.set(k, flight);
    return flight;
  };

  return {
    /** The principal of a token; throws the auth service's UNAUTHORIZED when it is not valid. */
    async resolve(token: string, bearerToken = ''): Promise<Principal> {
      // The bearer JWT may complete a secondary factor, so it is part of what is cached.
      const k = key(bearerToken ? `${token}\u0000${bearerToken}` : token);
      const hit = byToken.get(k);
      const now = Date.now();
      if (hit && hit.until > now) {
        if (hit.refreshFrom <= now && !pending.has(k)) {
          // A refusal drops the entry (the next request learns it); any other failure leaves it to end.
          validate(k, token, bearerToken).catch((err: unknown) => {
            if (isZitiError(err) && err.code === 'UNAUTHORIZED' && byToken.get(k) === hit) remove(k);
          });
        }
        return hit.principal;
      }
      return pending.get(k) ?? validate(k, token, bearerToken);
    },
    /**
     * Drops every principal of the identity this replica holds, for a change the caller made to
     * its own authenticators or MFA: its next request here sees it at once (other replicas learn
     * it from the auth service's event).
     */
    forgetIdentity(identityId: string) {
      dropIdentity(identityId);
    },
    forget(token: string) {
      // Entries of the same token resolved with a bearer JWT go too.
      drop(`t:${key(token)}`);
    },
    async start() {
      bus.onReconnect(dropAll);
      subs.push(
        // A new API session changes no cached principal.
        await bus.subscribe<{ id: string }>(API_SESSION_UPDATED, async (m) => dropSession(m.data.id)),
        await bus.subscribe<{ id: string }>(API_SESSION_DELETED, async (m) => dropSession(m.data.id)),
        await bus.subscribe<{ identityId: string }>(MFA_EVENTS, async (m) => dropIdentity(m.data.identityId)),
        await bus.subscribe<{ id: string; updatedAt?: unknown }>(IDENTITY_EVENTS, async (m) => {
          // The environment a client reported is not part of a principal.
          if (m.subject === IDENTITY_ENVIRONMENT) return;
          raiseFloor(m.data.id, m.data.updatedAt);
          dropIdentity(m.data.id);
        }),
        // The auth service's read model of the identity, or its authenticators, took a change
        // (name, admin, role attributes, usernames...): principals resolved before it go again.
        await bus.subscribe<{ identityId: string }>(PRINCIPAL_UPDATED, async (m) => dropIdentity(m.data.identityId)),
        // A policy or signer decides for many identities at once; such changes are rare.
        await bus.subscribe(AUTH_POLICY_EVENTS, async () => dropAll()),
        await bus.subscribe(EXTERNAL_JWT_SIGNER_EVENTS, async () => dropAll()),
      );
    },
    async stop() {
      await Promise.all(subs.splice(0).map((s) => s.unsubscribe()));
      dropAll();
      floors.clear();
    },
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
