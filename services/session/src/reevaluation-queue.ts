/**
 * Changes that may end sessions, coalesced: a consumer adds what its change may affect and waits;
 * one worker takes everything added meanwhile (after a short delay), resolves role selections to
 * ids once per distinct selection, reads only the affected sessions through their indexes, in
 * pages, and judges each page in one batch. A burst of N changes costs a few passes, not N.
 *
 * Each change is judged twice: when it is heard, and again `followUpMs` later. A creation checks
 * its access (asked of the policy service, or held) before it writes its session, so one that
 * checked before the change and wrote after the first pass had read its pages escapes that pass;
 * by the second, every such creation has written or failed (an access is held at most
 * EDGE_EVALUATION_CACHE_TTL_MS, a creation lasts at most EDGE_GRPC_DEADLINE_MS). A follow-up lost
 * with its replica is the periodic reconciliation's.
 */
import type { Logger } from '@edge/logging';
import type { RoleSelection, SessionPeers } from './peers/index.js';
import type { Reevaluation } from './reevaluation.js';
import type { SessionFilter, SessionRecords } from './store/session.js';

/** Entities by id, or as a role list selects them. */
export type EntitySet = { ids: string[] } | { selection: RoleSelection };

/** What a change may affect: the sessions of these identities for these services; an absent side is every one. */
export interface Affected {
  identities?: EntitySet;
  services?: EntitySet;
}

export interface QueueDeps {
  records: Pick<SessionRecords, 'page' | 'deleteOf'>;
  reevaluation: Pick<Reevaluation, 'staleAmong'>;
  peers: Pick<SessionPeers, 'matchIdentities' | 'matchServices'>;
  log: Logger;
  /** How long the worker waits for more changes before a pass. Default 20 ms. */
  delayMs?: number;
  /** Sessions judged per batch. Default 500. */
  pageSize?: number;
  /** How long after its first pass a change is judged again (see above); 0: never. */
  followUpMs?: number;
}

interface Waiting {
  affected: Affected;
  /** A follow-up: judged once more, and not followed up again. */
  again?: boolean;
  resolve(ended: number): void;
  reject(err: unknown): void;
}

export function createReevaluationQueue({ records, reevaluation, peers, log, delayMs = 20, pageSize = 500, followUpMs = 0 }: QueueDeps) {
  let waiting: Waiting[] = [];
  let timer: NodeJS.Timeout | undefined;
  const followUps = new Set<NodeJS.Timeout>();
  let running: Promise<void> | undefined;
  let stopped = false;

  /** The ids an entity set names; undefined for every entity (`#all`). Each selection is matched once per pass. */
  function resolver(match: (s: RoleSelection) => Promise<string[]>) {
    const seen = new Map<string, Promise<string[] | undefined>>();
    return (set: EntitySet | undefined): Promise<string[] | undefined> => {
      if (!set) return Promise.resolve(undefined);
      if ('ids' in set) return Promise.resolve(set.ids);
      if (set.selection.roles.includes('#all')) return Promise.resolve(undefined);
      const key = JSON.stringify(set.selection);
      if (!seen.has(key)) seen.set(key, match(set.selection));
      return seen.get(key)!;
    };
  }

  /** One filter for every change of a pass (pairs merged: at worst a few more sessions judged). */
  async function filterOf(changes: readonly Affected[]): Promise<SessionFilter> {
    const identitiesOf = resolver((s) => peers.matchIdentities(s));
    const servicesOf = resolver((s) => peers.matchServices(s));
    const filter: SessionFilter & { pairs: { identityIds: string[]; serviceIds: string[] } } = { identityIds: [], serviceIds: [], pairs: { identityIds: [], serviceIds: [] } };
    for (const change of changes) {
      const [identityIds, serviceIds] = await Promise.all([identitiesOf(change.identities), servicesOf(change.services)]);
      if (!identityIds && !serviceIds) return { all: true, identityIds: [], serviceIds: [] };
      if (!serviceIds) filter.identityIds.push(...identityIds!);
      else if (!identityIds) filter.serviceIds.push(...serviceIds);
      else if (identityIds.length > 0 && serviceIds.length > 0) {
        filter.pairs.identityIds.push(...identityIds);
        filter.pairs.serviceIds.push(...serviceIds);
      }
    }
    const unique = (xs: string[]) => [...new Set(xs)];
    return {
      identityIds: unique(filter.identityIds), serviceIds: unique(filter.serviceIds),
      pairs: { identityIds: unique(filter.pairs.identityIds), serviceIds: unique(filter.pairs.serviceIds) },
    };
  }

  /** Judges every session the changes may affect, page by page; how many ended. */
  async function pass(changes: readonly Affected[]): Promise<number> {
    const filter = await filterOf(changes);
    let ended = 0;
    for (let after = ''; ;) {
      const page = await records.page(filter, after, pageSize);
      const stale = await reevaluation.staleAmong(page, { posture: true });
      ended += await records.deleteOf({ ids: stale.map((s) => s.id) });
      if (page.length < pageSize) break;
      after = page.at(-1)!.id;
    }
    if (ended > 0) log.info({ ended, changes: changes.length }, 'sessions ended: access or posture lost');
    return ended;
  }

  /** Judges the changes of a first pass again after `followUpMs`; no one waits for it. */
  function followUp(changes: Affected[]): void {
    if (followUpMs <= 0 || changes.length === 0 || stopped) return;
    const t = setTimeout(() => {
      followUps.delete(t);
      if (stopped) return;
      // Logged once for the follow-up, however many changes it holds.
      let logged = false;
      const fail = (err: unknown) => {
        if (!logged && !stopped) log.warn({ err, changes: changes.length }, 'follow-up re-evaluation failed; the periodic reconciliation judges these sessions');
        logged = true;
      };
      for (const affected of changes) waiting.push({ affected, again: true, resolve: () => undefined, reject: fail });
      schedule();
    }, followUpMs);
    t.unref();
    followUps.add(t);
  }

  function run(): void {
    timer = undefined;
    const batch = waiting;
    waiting = [];
    const changes = batch.map((w) => w.affected);
    running = pass(changes)
      .then((ended) => {
        followUp(batch.filter((w) => !w.again).map((w) => w.affected));
        batch.forEach((w) => w.resolve(ended));
      }, (err: unknown) => batch.forEach((w) => w.reject(err)))
      .finally(() => {
        running = undefined;
        if (waiting.length > 0) schedule();
      });
  }

  function schedule(): void {
    if (!timer && !running && !stopped) timer = setTimeout(run, delayMs);
  }

  return {
    /**
     * Judges again the sessions a change may affect, together with the other changes added
     * meanwhile; resolves (with how many sessions that pass ended) once they are judged.
     */
    add(affected: Affected): Promise<number> {
      if (stopped) return Promise.reject(new Error('the session service is stopping'));
      return new Promise<number>((resolve, reject) => {
        waiting.push({ affected, resolve, reject });
        schedule();
      });
    },
    /** Finishes the running pass; changes still waiting fail (their events are redelivered). */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      for (const t of followUps) clearTimeout(t);
      followUps.clear();
      await running;
      const left = waiting;
      waiting = [];
      left.forEach((w) => w.reject(new Error('the session service is stopping')));
    },
  };
}

export type ReevaluationQueue = ReturnType<typeof createReevaluationQueue>;
