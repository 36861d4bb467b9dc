/**
 * Service accesses (session creation, a session's edge routers, policy advice) answered from
 * parts kept in memory: what the policies select of each identity, of each service, and the edge
 * routers both select (store/access-parts.ts). An access is the policies both the identity's and
 * the service's parts hold, their types, and the edge routers both select, so a network of many
 * identities and services keeps one part per identity and one per service, not one per pair, and
 * one router list per set of routers two such parts share.
 *
 * Freshness is the database's, not a time's: every part is kept under the `access_version` it
 * was read at, and every read first reads the version as it stands now (one small statement,
 * shared by the reads that arrive in the same turn of the event loop). A part is used only when
 * its version is the current one, and an answer is made only of parts of one version, so it is
 * what the one-statement read would have answered at that version. A change made by any replica,
 * or behind every replica's back, is seen by the next read.
 *
 * Parts are also read ahead, in the background, so that accesses seldom wait for a cold one: the
 * services asked to be warmed (every service, at start) and, once the tables have stood still for
 * `settleMs` after a change, the parts the change made stale (the last kept before it, up to
 * {@link AHEAD_AFTER_CHANGE} of each kind). They are read a page at a time, one statement in
 * flight, and a read ahead that a newer change overtook is not kept. Reads ahead change no
 * answer: a part is still used only at the version of the read.
 */
import type { Logger } from '@edge/logging';
import { createBatcher } from '@edge/rpc';
import type { AccessRead, RoutersWanted, ServiceGrant } from './store/access.js';
import type { AccessPartsStore, IdentityPart, RouterList, ServicePart } from './store/access-parts.js';
import type { Caller } from './store/evaluation.js';

/** How an access's edge routers are wanted when matched in the read model. */
export type ModelRoutersWanted = Extract<RoutersWanted, { from: 'model' }>;

export interface AccessReaderOptions {
  /** The most identity parts and service parts kept, each; the oldest go first. */
  maxParts?: number;
  /** The most edge routers kept across the router lists (a list weighs as many as it holds). */
  maxRouters?: number;
  /** How long the tables stand still after a change before the parts it made stale are read ahead (default 250 ms). */
  settleMs?: number;
  /** Where a failed read ahead is told (it changes no answer: the parts are then read when asked for). */
  log?: Logger;
}

/** Service parts read ahead by one statement. */
const AHEAD_PAGE = 200;
/** Identity parts and router lists read ahead at once (a statement each). */
const AHEAD_PARALLEL = 4;
/**
 * The parts of each kind read ahead after a change at most: the last kept. The others are read
 * when asked for, so a network of many identities and services does not read them all at each
 * change.
 */
const AHEAD_AFTER_CHANGE = 2_000;

/** The most identity parts and service parts kept, each, unless told otherwise. */
export const ACCESS_PARTS_KEPT = 50_000;

/** Identity parts (and, apart, router lists) read at once at most, a statement each. */
const PART_READS_AT_ONCE = 4;

/** `load` with at most {@link PART_READS_AT_ONCE} calls under way; the others wait their turn. */
const fewAtATime = <T>(load: (key: string) => Promise<T>) =>
  createBatcher((keys: string[]) => load(keys[0]!).then((part) => [part]), { maxBatch: 1, maxInFlight: PART_READS_AT_ONCE });

/** Reads tried with parts of differing versions before one falls back to the one-statement read. */
const ATTEMPTS = 3;

/**
 * Parts of one kind by key, each under its version, at most `maxWeight` of them by `weigh` (the
 * oldest go first).
 */
function partCache<T extends { version: number }>(load: (key: string) => Promise<T>, maxWeight: number, weigh: (part: T) => number = () => 1) {
  const kept = new Map<string, { part: T; weight: number }>();
  let weight = 0;
  const drop = (key: string) => {
    const e = kept.get(key);
    if (e && kept.delete(key)) weight -= e.weight;
  };
  // Reads under way, shared by the accesses that need the same part (one SDK dialing many services).
  const reading = new Map<string, Promise<T>>();
  /** Keeps a part, unless a part as new is kept or it weighs too much (the oldest make room). */
  const offer = (key: string, part: T) => {
    const now = kept.get(key)?.part;
    const w = Math.max(1, weigh(part));
    if ((now && now.version >= part.version) || w > maxWeight) return;
    drop(key);
    while (weight + w > maxWeight) drop(kept.keys().next().value!);
    kept.set(key, { part, weight: w });
    weight += w;
  };
  const read = (key: string): Promise<T> => {
    let pending = reading.get(key);
    if (!pending) {
      pending = load(key).finally(() => reading.delete(key));
      reading.set(key, pending);
    }
    return pending;
  };
  return {
    /** The part for `key` of version `version` or newer: kept, or read now. */
    async atLeast(key: string, version: number): Promise<T> {
      const hit = kept.get(key)?.part;
      if (hit && hit.version >= version) return hit;
      let part = await read(key);
      // A read that began before the version was: read again.
      if (part.version < version) part = await load(key);
      offer(key, part);
      return part;
    },
    offer,
    /** Forgets the parts older than `version` (they will not be used again); their keys. */
    forgetBefore(version: number): string[] {
      const gone: string[] = [];
      for (const [key, e] of kept) {
        if (e.part.version < version) {
          drop(key);
          gone.push(key);
        }
      }
      return gone;
    },
  };
}

/** The key of an identity part: the id and the role attributes, as the caller sent them. */
const identityKey = (c: Caller) => `${c.identityId}\u0000${c.roleAttributes.join('\u0000')}`;

export function createAccessReader(store: AccessPartsStore, opts: AccessReaderOptions = {}) {
  const max = opts.maxParts ?? ACCESS_PARTS_KEPT;
  // Identity parts and router lists are read a statement each, at most PART_READS_AT_ONCE of a
  // kind at a time: a batch of a thousand accesses for as many identities waits here, in turn,
  // not all at once in the pool, whose wait for a connection is bounded.
  const loadIdentity = fewAtATime((key: string) => {
    const [identityId, ...roleAttributes] = key.split('\u0000');
    return store.identity(identityId!, roleAttributes);
  });
  const loadRouters = fewAtATime((key: string) => store.routers(key === '' ? [] : key.split('\u0000')));
  const identities = partCache<IdentityPart>(loadIdentity, max);
  // The service parts wanted in one turn are read by one statement: after a change, or at a new
  // replica's start, the accesses of a batch each want their own.
  const serviceParts = createBatcher((ids: string[]) => store.services(ids), { maxBatch: 64, maxInFlight: 4 });
  const services = partCache<ServicePart>(serviceParts, max);
  const routers = partCache<RouterList>(loadRouters, opts.maxRouters ?? 100_000, (list) => list.routers.length);

  // The version read shared by the reads of one turn: started after each of them arrived, so none
  // is answered from a state older than its own arrival.
  let next: Promise<number> | undefined;
  let latest = 0;
  const currentVersion = (): Promise<number> => {
    next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      next = undefined;
      return store.version();
    }).then((v) => {
      if (v > latest) {
        latest = v;
        const last = (keys: string[]) => keys.slice(-AHEAD_AFTER_CHANGE);
        ahead.stale(last(identities.forgetBefore(v)), last(services.forgetBefore(v)), last(routers.forgetBefore(v)));
      }
      return v;
    });
    return next;
  };

  const ahead = readAhead(
    { identities: loadIdentity, services: (ids) => store.services(ids), routers: loadRouters },
    { identities: identities.offer, services: services.offer, routers: routers.offer },
    () => latest, opts,
  );

  /**
   * The parts of one access, all of one version: the identity's, the service's and, when wanted,
   * the edge routers both select. Undefined when they would not agree.
   */
  async function partsOf(caller: Caller, serviceId: string, wantRouters: (who: IdentityPart, what: ServicePart) => boolean) {
    let version = await currentVersion();
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const [who, what] = await Promise.all([identities.atLeast(identityKey(caller), version), services.atLeast(serviceId, version)]);
      let list: RouterList | undefined;
      if (who.version === what.version && wantRouters(who, what)) {
        // Sorted: one key per set of routers (the statement orders them as the identity service lists them).
        const both = [...who.routerIds].filter((id) => what.routerIds.has(id)).sort();
        list = both.length === 0 ? { version: who.version, routers: [] } : await routers.atLeast(both.join('\u0000'), who.version);
      }
      const versions = [who.version, what.version, ...(list ? [list.version] : [])];
      if (versions.every((v) => v === who.version)) return { who, what, list };
      // A change landed while the parts were read: read again those older than the newest.
      version = Math.max(...versions);
    }
    return undefined;
  }

  /** The grant the two parts make: the service's policies that also select the identity, and their types. */
  function grantOf(who: IdentityPart, what: ServicePart): ServiceGrant | undefined {
    if (!what.service) return undefined;
    const policies = what.policies.filter((p) => who.policyTypes.has(p.id));
    return { service: what.service, permissions: [...new Set(policies.map((p) => p.type))].sort(), policies };
  }

  return {
    /** Reads the parts of these services ahead (at start: every service). */
    warm(serviceIds: readonly string[]): void {
      ahead.stale([], serviceIds, []);
    },
    /** The access version as it stands now (the read shared by the reads of one turn). */
    version(): Promise<number> {
      return currentVersion();
    },
    /** Reads the version now, so the parts a change made stale are read ahead without waiting for an access. */
    changed(): Promise<void> {
      return currentVersion().then(() => undefined);
    },
    /** Resolves once nothing is waiting to be read ahead. */
    settled: ahead.settled,
    /** Stops reading ahead. */
    stop: ahead.stop,

    /**
     * What the caller may do with the service, as the one-statement read answers it with the
     * edge routers matched in the read model (not read when `grantedOnly` and nothing is granted);
     * undefined when the service does not exist, and `null` when the tables kept changing under
     * the read (the caller then reads in one statement).
     */
    async read(caller: Caller, serviceId: string, wanted?: ModelRoutersWanted, grantedOnly = false): Promise<AccessRead | undefined | null> {
      // The edge routers are read only for an answer that will carry them.
      const parts = await partsOf(caller, serviceId, (who, what) => !!wanted?.routers && !!what.service && (!grantedOnly || grantOf(who, what)!.permissions.length > 0));
      if (!parts) return null;
      const { who, what, list } = parts;
      const grant = grantOf(who, what);
      if (!grant) return undefined;
      if (!wanted) return { grant };
      return {
        grant,
        routers: {
          edgeRouters: list?.routers ?? [],
          identityEdgeRouterCount: wanted.counts ? who.routerIds.size : 0,
          serviceEdgeRouterCount: wanted.counts ? what.routerIds.size : 0,
        },
      };
    },
  };
}

export type AccessReader = ReturnType<typeof createAccessReader>;

/**
 * The background reads of parts ahead of their use: the keys waiting, by kind, read once the
 * tables stood still for `settleMs`, services by pages, the others a few at a time. A part read
 * ahead older than the newest version seen is not kept: its key waits again.
 */
function readAhead(
  read: { identities(key: string): Promise<IdentityPart>; services(ids: string[]): Promise<ServicePart[]>; routers(key: string): Promise<RouterList> },
  keep: { identities(key: string, p: IdentityPart): void; services(key: string, p: ServicePart): void; routers(key: string, p: RouterList): void },
  latest: () => number,
  opts: AccessReaderOptions,
) {
  const settleMs = opts.settleMs ?? 250;
  const waiting = { identities: new Set<string>(), services: new Set<string>(), routers: new Set<string>() };
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = false;
  let lastChange = 0;
  let idle: Array<() => void> = [];
  const pending = () => waiting.identities.size + waiting.services.size + waiting.routers.size > 0;
  const take = (set: Set<string>, n: number) => {
    const keys = [...set].slice(0, n);
    for (const k of keys) set.delete(k);
    return keys;
  };
  const schedule = (ms: number) => {
    if (stopped || running) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), ms).unref();
  };
  const wake = () => {
    if (running || (pending() && !stopped)) return;
    for (const resolve of idle) resolve();
    idle = [];
  };
  /** Keeps what is as new as the newest version seen; else the key waits again. */
  const offer = <T extends { version: number }>(set: Set<string>, give: (key: string, part: T) => void, key: string, part: T) => {
    if (part.version >= latest()) give(key, part);
    else set.add(key);
  };

  async function run(): Promise<void> {
    running = true;
    try {
      // Until the waiting keys are read, or a change comes that the tables should settle after.
      while (!stopped && pending() && Date.now() - lastChange >= settleMs) {
        if (waiting.services.size > 0) {
          const ids = take(waiting.services, AHEAD_PAGE);
          const parts = await read.services(ids);
          parts.forEach((p, i) => offer(waiting.services, keep.services, ids[i]!, p));
        } else if (waiting.identities.size > 0) {
          await Promise.all(take(waiting.identities, AHEAD_PARALLEL).map(async (k) => offer(waiting.identities, keep.identities, k, await read.identities(k))));
        } else {
          await Promise.all(take(waiting.routers, AHEAD_PARALLEL).map(async (k) => offer(waiting.routers, keep.routers, k, await read.routers(k))));
        }
      }
    } catch (err) {
      // The keys of the failed read are read when asked for; a read cut short by the stop is no failure.
      if (!stopped) opts.log?.warn({ err }, 'reading access parts ahead failed');
    } finally {
      running = false;
    }
    if (pending() && !stopped) schedule(Math.max(0, lastChange + settleMs - Date.now()));
    else wake();
  }

  return {
    /** Keys whose parts a change made stale (or that should be warmed): read once the tables settle. */
    stale(identities: readonly string[], services: readonly string[], routers: readonly string[]) {
      if (stopped) return;
      for (const k of identities) waiting.identities.add(k);
      for (const k of services) waiting.services.add(k);
      for (const k of routers) waiting.routers.add(k);
      lastChange = Date.now();
      schedule(settleMs);
    },
    settled(): Promise<void> {
      return new Promise<void>((resolve) => {
        idle.push(resolve);
        wake();
      });
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake();
    },
  };
}
