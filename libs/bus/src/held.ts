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
 * Answers kept by key on the terms above: an answer asked for at some generation is used again
 * while its hold stands, and kept only when a hold was granted before it was asked for (and
 * `keep` allows it). At most `max` are kept; the least recently used go first.
 */
export function createHeldAnswers<T>(changes: HeardChanges, max: number, now: () => number = Date.now) {
  const kept = new Map<string, { value: T; hold: Hold }>();
  return {
    /** The answer of `key`: the one held, or what `load` answers now. */
    async through(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
      const generation = changes.generation;
      const hit = kept.get(key);
      kept.delete(key);
      if (hit && holds(hit.hold, generation, now())) {
        kept.set(key, hit);
        return hit.value;
      }
      const hold = changes.holdFrom(generation);
      const value = await load();
      if (hold && keep(value)) {
        kept.set(key, { value, hold });
        if (kept.size > max) kept.delete(kept.keys().next().value!);
      }
      return value;
    },
  };
}
