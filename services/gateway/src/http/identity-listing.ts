/**
 * What the management identity list and detail show, kept between requests so that an operator's
 * console or script reading the same identities again is answered without asking three owners.
 *
 * - **Pages of identities** (the identity service's answer to a list query) are held the way the
 *   client service list is (http/list-changes.ts): while no `edge.identity.identity.*` event was
 *   heard, no administrator's write went through this gateway and the bus stayed connected, and
 *   for at most `holdMs`. A page showing a lockout is held no longer than the lockout lasts,
 *   since `disabled` ends by itself then.
 * - **Each identity's auth summary** (auth service: its authenticators, whether it has an API
 *   session, whether MFA is on) and **its outstanding enrollments** (pki service) are kept per
 *   identity, for a minute at most, and dropped by the events their owners announce of that
 *   identity: API sessions created and ended, authenticators and MFA changed, enrollments
 *   created, refreshed and removed, and the identity deleted. Only the identities a page lacks
 *   are asked for, in one call per owner.
 *
 * As with the other caches here, a look-up under way when an event drops its identity is
 * answered but not kept, every entry is dropped when the connection to the bus comes back (events
 * may have been missed), and an administrator's write through this gateway drops everything
 * before it is answered, so the writer reads its own change.
 */
import type { Bus, Subscription } from '@edge/bus';
import { API_SESSION_CREATED, API_SESSION_DELETED, AUTHENTICATOR_EVENTS, ENROLLMENT_EVENTS, IDENTITY_CHANGES, IDENTITY_DELETED, MFA_EVENTS } from '@edge/events';
import type { auth, common, identity, pki } from '@edge/proto';
import { createBatcher } from '@edge/rpc';
import type { Clients } from '../clients.js';
import { enrollmentsByOwner } from '../routes/shared/enrollments.js';
import { lockoutEnd } from './identity-cache.js';
import { createListChanges, holds, type Hold, type ListChanges } from './list-changes.js';

type Page = identity.ListIdentitiesResponse__Output;
type Summary = auth.IdentityAuthSummary__Output;
type Enrollment = pki.Enrollment__Output;

/** Subjects whose events name an identity (`identityId`) whose auth summary changed. */
const SUMMARY_SUBJECTS = [API_SESSION_CREATED, API_SESSION_DELETED, AUTHENTICATOR_EVENTS, MFA_EVENTS];
/** Subjects whose events name an identity (`identityId`) whose enrollments changed. */
const ENROLLMENT_SUBJECTS = [ENROLLMENT_EVENTS];
/** Identity events: they move the pages' generation; a deletion also drops what is kept of the identity. */
const IDENTITY_SUBJECTS = [IDENTITY_CHANGES];

/** Identities on held pages, all pages together; the least recently used pages go first. */
const MAX_PAGED_IDENTITIES = 50_000;
/** Identities whose summary (or enrollments) are kept. */
const MAX_ENTRIES = 50_000;

/**
 * Values kept per identity and fetched for many identities at once. `fetch` answers the ids it
 * was given; an id it leaves out has no value (kept too, as "none").
 */
export function createPerIdentity<V>(fetch: (ids: string[]) => Promise<Map<string, V>>, ttlMs: number, now: () => number = Date.now) {
  const entries = new Map<string, { value: V | undefined; until: number }>();
  /** Counts drops; a look-up keeps only what was not dropped after it started. */
  let version = 0;
  let clearedAt = 0;
  const droppedAt = new Map<string, number>();
  let flights = 0;

  return {
    drop(id: string) {
      entries.delete(id);
      version++;
      // Only a look-up under way needs to know; past a bound, it forgets what it asked for.
      if (flights === 0) return;
      if (droppedAt.size < MAX_ENTRIES) droppedAt.set(id, version);
      else {
        clearedAt = version;
        droppedAt.clear();
      }
    },
    dropAll() {
      entries.clear();
      clearedAt = ++version;
    },
    get size() {
      return entries.size;
    },
    /** How many drops are remembered for look-ups under way (none while there are none). */
    get remembered() {
      return droppedAt.size;
    },
    /** Moves with every drop: what was read from these values before is still what they are while it stays. */
    get version() {
      return version;
    },
    /** The values of `ids` that have one. */
    async getMany(ids: readonly string[]): Promise<Map<string, V>> {
      const out = new Map<string, V>();
      const missing: string[] = [];
      const t = now();
      for (const id of ids) {
        const hit = entries.get(id);
        if (!hit || hit.until <= t) missing.push(id);
        else if (hit.value !== undefined) out.set(id, hit.value);
      }
      if (missing.length === 0) return out;
      const startedAt = version;
      flights++;
      let fetched: Map<string, V>;
      try {
        fetched = await fetch(missing);
      } finally {
        flights--;
      }
      const until = now() + ttlMs;
      for (const id of missing) {
        const value = fetched.get(id);
        if (value !== undefined) out.set(id, value);
        if (clearedAt > startedAt || (droppedAt.get(id) ?? 0) > startedAt) continue;
        entries.delete(id);
        entries.set(id, { value, until });
      }
      // Drops only matter to look-ups under way.
      if (flights === 0) droppedAt.clear();
      while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      return out;
    },
  };
}

/** Look-ups of more ids than this (a page of every row) are not merged with others. */
const MAX_MERGED_IDS = 500;

/**
 * `fetch` with the look-ups made together merged into one call: the pages of many requests read
 * at once (a console opening, or the first reads of many filters) ask each owner once, not once
 * per page. Each caller gets the answer of the merged call and reads its own ids in it.
 */
function mergedLookups<V>(fetch: (ids: string[]) => Promise<Map<string, V>>): (ids: string[]) => Promise<Map<string, V>> {
  const merged = createBatcher<string[], Map<string, V>>(async (lists) => {
    const answer = await fetch([...new Set(lists.flat())]);
    return lists.map(() => answer);
  }, { maxBatch: 16 });
  return (ids) => (ids.length > MAX_MERGED_IDS ? fetch(ids) : merged(ids));
}

/** When a held page must be asked for again at the latest: its hold, or the end of the first lockout it shows. */
function pageHold(page: Page, hold: Hold): Hold {
  return { generation: hold.generation, until: Math.min(hold.until, ...page.identities.map(lockoutEnd)) };
}

type Render = (page: Page, summaries: Map<string, Summary>, enrollments: Map<string, Enrollment[]>) => Buffer;

/** A page, the summaries and enrollments of its identities, and the body `render` makes of them. */
async function assemble(l: Pick<IdentityListing, 'page' | 'summaries' | 'enrollments'>, query: common.ListQuery, render: Render) {
  const page = await l.page(query);
  const ids = page.identities.map((i) => i.id);
  const [summaries, enrollments] = await Promise.all([l.summaries(ids), l.enrollments(ids)]);
  return { page, body: render(page, summaries, enrollments) };
}

export interface IdentityListing {
  /** A page of identities for `query`, from the identity service or held. */
  page(query: common.ListQuery): Promise<Page>;
  /**
   * The page of `query` with the summaries and enrollments of its identities, rendered by
   * `render`: the bytes rendered before for the same `variant` while the page is held and nothing
   * kept was dropped since (so they show exactly what would be rendered now).
   */
  rendered(query: common.ListQuery, variant: string, render: Render): Promise<Buffer>;
  /** Auth summaries of these identities, by id. */
  summaries(ids: readonly string[]): Promise<Map<string, Summary>>;
  /** Outstanding enrollments of these identities, by id. */
  enrollments(ids: readonly string[]): Promise<Map<string, Enrollment[]>>;
  /** An administrator's write went through this gateway: nothing kept may be used. */
  changed(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createIdentityListing(clients: Clients, bus: Bus, holdMs: number, ttlMs = 60_000): IdentityListing {
  const changes: ListChanges = createListChanges(bus, holdMs, Date.now, IDENTITY_SUBJECTS);
  /** A held page, with the bodies rendered from it and what was kept with it (by variant, each with the stamp it was rendered at). */
  const pages = new Map<string, { page: Page; hold: Hold; bodies: Map<string, { stamp: number; body: Buffer }> }>();
  let paged = 0;
  const unhold = (key: string) => {
    const kept = pages.get(key);
    if (kept && pages.delete(key)) paged -= kept.page.identities.length;
  };
  const summaries = createPerIdentity(mergedLookups(async (ids) => {
    const r = await clients.auth.getIdentityAuthSummaries({ identityIds: ids });
    return new Map(r.summaries.map((s) => [s.identityId, s]));
  }), ttlMs);
  const enrollments = createPerIdentity(mergedLookups((ids) => enrollmentsByOwner(clients, { identityIds: ids })), ttlMs);
  const subs: Subscription[] = [];
  const dropAll = () => {
    pages.clear();
    paged = 0;
    summaries.dropAll();
    enrollments.dropAll();
  };
  /** Moves with every change to what is kept (a sum of counters that only grow). */
  const stamp = () => changes.generation + summaries.version + enrollments.version;
  const onIdentity = (kept: { drop(id: string): void }) => async (m: { data: { identityId?: unknown } }) => {
    if (typeof m.data?.identityId === 'string') kept.drop(m.data.identityId);
  };

  const page = async (query: common.ListQuery): Promise<Page> => {
    const key = JSON.stringify(query);
    const kept = pages.get(key);
    if (kept && holds(kept.hold, changes.generation)) {
      // The most recently used last.
      pages.delete(key);
      pages.set(key, kept);
      return kept.page;
    }
    const generation = changes.generation;
    const answer = await clients.identity.listIdentities({ query });
    const hold = changes.holdFrom(generation);
    unhold(key);
    if (hold) {
      pages.set(key, { page: answer, hold: pageHold(answer, hold), bodies: new Map() });
      paged += answer.identities.length;
      while (paged > MAX_PAGED_IDENTITIES) unhold(pages.keys().next().value!);
    }
    return answer;
  };

  const listing: IdentityListing = {
    page,
    async rendered(query, variant, render) {
      const key = JSON.stringify(query);
      const kept = pages.get(key);
      const at = stamp();
      const body = kept && holds(kept.hold, changes.generation) ? kept.bodies.get(variant) : undefined;
      if (body && body.stamp === at) return body.body;
      const { page: p, body: out } = await assemble(listing, query, render);
      // Kept only if nothing was dropped meanwhile: then everything it shows is what is kept now.
      const held = pages.get(key);
      if (held?.page === p && stamp() === at) held.bodies.set(variant, { stamp: at, body: out });
      return out;
    },
    summaries: (ids) => summaries.getMany(ids),
    enrollments: (ids) => enrollments.getMany(ids),
    changed() {
      changes.bump();
      dropAll();
    },
    async start() {
      await changes.start();
      bus.onReconnect(dropAll);
      for (const subject of SUMMARY_SUBJECTS) subs.push(await bus.subscribe(subject, onIdentity(summaries)));
      for (const subject of ENROLLMENT_SUBJECTS) subs.push(await bus.subscribe(subject, onIdentity(enrollments)));
      subs.push(await bus.subscribe<{ id?: unknown }>(IDENTITY_DELETED, async (m) => {
        if (typeof m.data?.id !== 'string') return;
        summaries.drop(m.data.id);
        enrollments.drop(m.data.id);
      }));
    },
    async stop() {
      await Promise.all(subs.splice(0).map((s) => s.unsubscribe()));
      await changes.stop();
      dropAll();
    },
  };
  return listing;
}

/** Nothing kept: every request asks the owners (for routes registered without a bus). */
export function uncachedIdentityListing(clients: Clients): IdentityListing {
  return {
    page: (query) => clients.identity.listIdentities({ query }),
    async rendered(query, _variant, render) {
      return (await assemble(this, query, render)).body;
    },
    summaries: async (ids) => new Map((await clients.auth.getIdentityAuthSummaries({ identityIds: [...ids] })).summaries.map((s) => [s.identityId, s])),
    enrollments: (ids) => enrollmentsByOwner(clients, { identityIds: [...ids] }),
    changed() {},
    async start() {},
    async stop() {},
  };
}
