/**
 * What this gateway has heard of changes to what a list shows; by default, the client's service
 * list: everything the policy service owns (services, configs, config types, policies, posture
 * checks) and the identities' own service configs (the identity service's). (The management
 * identity list uses the same with the identity events, http/identity-listing.ts.) A generation
 * moves on every `edge.policy.>` and `edge.identity.service-configs.>` event, on every administrator's write
 * answered through this gateway, and when the connection to the bus comes back after a loss
 * (events may have been missed meanwhile). A change of an identity's role attributes needs none
 * of this: they are part of what a cached answer is kept under.
 *
 * An answer read from the policy service while the generation stayed the same, and less than
 * `holdMs` ago, is still the answer: the policy service itself keeps its evaluations on the same
 * terms (its cache is emptied by these events and lives `EDGE_EVALUATION_CACHE_TTL_MS`). The
 * outbox publishes an event before the write that caused it returns, and an administrator's
 * write through this gateway moves the generation before its answer is sent, so a change is
 * seen by the next request; a lost event is bounded by `holdMs`.
 *
 * No hold is granted for a while after a change is heard ({@link SETTLE_MS}): another replica of
 * the policy service may hear the same event a little later than this gateway and answer from
 * its cache meanwhile, and such an answer must not be held.
 */
import type { Bus, Subscription } from '@edge/bus';
import { POLICY_CHANGES, SERVICE_CONFIGS_CHANGES } from '@edge/events';

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

export interface ListChanges {
  /** Moves on with every change heard; read it before the call whose answer is to be held. */
  readonly generation: number;
  /** How long an answer read at some generation may be kept while it stays the current one (0: never). */
  readonly holdMs: number;
  /** A hold from now for an answer asked for at `generation`; none when holding is off or a change was heard just now. */
  holdFrom(generation: number): Hold | undefined;
  /** Records a change made through this gateway. */
  bump(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What moves the generation of the client service list: everything the policy service owns, and the identities' own configs. */
export const SERVICE_LIST_SUBJECTS = [POLICY_CHANGES, SERVICE_CONFIGS_CHANGES];

/** Changes heard on `subjects` (by default {@link SERVICE_LIST_SUBJECTS}), administrators' writes and reconnects. */
export function createListChanges(bus: Bus, holdMs: number, now: () => number = Date.now, subjects: readonly string[] = SERVICE_LIST_SUBJECTS): ListChanges {
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

/** Changes never heard of: nothing read may be kept (for routes registered without a bus). */
export const unheardListChanges = (): ListChanges => ({
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
export function createHeldAnswers<T>(changes: ListChanges, max: number, now: () => number = Date.now) {
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
