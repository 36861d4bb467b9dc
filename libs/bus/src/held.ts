/**
 * Answers another service owns, held on the terms of what this process hears of changes to them.
 * A generation moves on every event of some subjects, on every change a caller records itself
 * (`bump`: an administrator's write it answered) and when the connection to the bus comes back
 * after a loss (events may have been missed meanwhile).
 *
 * An answer read from the owner while the generation stayed the same, and less than `holdMs`
 * ago, is still the answer: the owner keeps its own evaluations on the same terms (its cache is
 * emptied by these events and lives `EDGE_EVALUATION_CACHE_TTL_MS`). The outbox publishes an
 * event before the write that caused it returns, so a change is heard within the bus's delivery
 * time; a lost event is bounded by `holdMs`.
 *
 * No hold is granted for a while after a change is heard ({@link SETTLE_MS}): another replica of
 * the owner may hear the same event a little later than this process and answer from its cache
 * meanwhile, and such an answer must not be held.
 */
import type { Bus, Subscription } from './bus.js';

/** Until when an answer may be used without asking, if the generation of changes is still this one. */
export interface Hold {
  generation: number;
  until: number;
}

/** True while `hold` stands: its generation is still the current one and its time has not run out. */
export const holds = (hold: Hold | undefined, generation: number, now = Date.now()): boolean =>
  hold !== undefined && hold.generation === generation && hold.until > now;

/** How long after a change is heard answers are used but not held. */
export const SETTLE_MS = 1_000;

export interface HeardChanges {
  /** Moves on with every change heard; read it before the call whose answer is to be held. */
  readonly generation: number;
  /** How long an answer read at some generation may be kept while it stays the current one (0: never). */
  readonly holdMs: number;
  /** A hold from now for an answer asked for at `generation`; none when holding is off or a change was heard just now. */
  holdFrom(generation: number): Hold | undefined;
  /** Records a change made through this process. */
  bump(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Changes heard on `subjects`, recorded with `bump`, and reconnects. */
export function createHeardChanges(bus: Bus, holdMs: number, subjects: readonly string[], now: () => number = Date.now): HeardChanges {
  let generation = 0;
  let changedAt = -Infinity;
  const subs: Subscription[] = [];
  const bump = () => {
    generation++;
    changedAt = now();
  };
  return {
    get generation() {
      return generation;
    },
    holdMs,
    holdFrom(at) {
      const t = now();
      return holdMs > 0 && t - changedAt >= SETTLE_MS ? { generation: at, until: t + holdMs } : undefined;
    },
    bump,
    async start() {
      bus.onReconnect(bump);
      for (const subject of subjects) subs.push(await bus.subscribe(subject, async () => bump()));
    },
    async stop() {
      await Promise.all(subs.splice(0).map((s) => s.unsubscribe()));
      bump();
    },
  };
}

/** Changes never heard of: nothing read may be kept (for parts started without a bus). */
export const unheardChanges = (): HeardChanges => ({
  get generation() {
    return 0;
  },
  holdMs: 0,
  holdFrom: () => undefined,
  bump() {},
  async start() {},
  async stop() {},
});

/**
 * The part of a hold, at its end, in which a use of the answer also asks for it again in the
 * background: an answer in use is renewed before its hold runs out, so its callers do not wait
 * for the owner once per hold.
 */
export const RENEW_AHEAD = 0.2;

/** True when `hold` (standing) is in the part of its time at which its answer is renewed. */
export const renewsAt = (hold: Hold, holdMs: number, now: number): boolean => hold.until - now <= holdMs * RENEW_AHEAD;

interface Kept<T> {
  value: T;
  hold: Hold;
  renewing?: boolean;
}

/**
 * Answers kept by key on the terms above: an answer asked for at some generation is used again
 * while its hold stands, and kept only when a hold was granted before it was asked for (and
 * `keep` allows it). A use in the last part of a hold ({@link RENEW_AHEAD}) also asks again in
 * the background, once, and the new answer is kept with a new hold (dropped if `keep` refuses
 * it). At most `max` are kept; the least recently used go first.
 */
export function createHeldAnswers<T>(changes: HeardChanges, max: number, now: () => number = Date.now) {
  const kept = new Map<string, Kept<T>>();
  const put = (key: string, entry: Kept<T>) => {
    kept.delete(key);
    kept.set(key, entry);
    if (kept.size > max) kept.delete(kept.keys().next().value!);
  };
  /** Asks for `key` again while its held answer `entry` still answers. */
  const renew = (key: string, entry: Kept<T>, load: (previous?: T) => Promise<T>, keep: (value: T) => boolean, generation: number) => {
    const hold = changes.holdFrom(generation);
    if (!hold) return;
    entry.renewing = true;
    load(entry.value).then((value) => {
      // Only in place of the answer it renews: one asked for meanwhile, or a drop, wins.
      if (kept.get(key) !== entry) return;
      if (keep(value)) put(key, { value, hold });
      else kept.delete(key);
    }).catch(() => {
      // Unanswered: the held answer stands until its hold runs out, and a later use asks again.
      entry.renewing = false;
    });
  };
  return {
    /**
     * The answer of `key`: the one held, or what `load` answers now. `load` is given the answer
     * it replaces, when there is one (renewed, or whose hold ran out), so that an owner asked
     * whether it still stands may say so without sending it again.
     */
    async through(key: string, load: (previous?: T) => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
      const generation = changes.generation;
      const t = now();
      const hit = kept.get(key);
      if (hit && holds(hit.hold, generation, t)) {
        put(key, hit);
        if (!hit.renewing && renewsAt(hit.hold, changes.holdMs, t)) renew(key, hit, load, keep, generation);
        return hit.value;
      }
      if (hit) kept.delete(key);
      const hold = changes.holdFrom(generation);
      const value = await load(hit?.value);
      if (hold && keep(value)) put(key, { value, hold });
      return value;
    },
  };
}
