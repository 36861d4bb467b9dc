/**
 * A cache of evaluated service lists, the hottest read of the controller: every SDK asks for its
 * services again and again, and between policy changes the answer does not change. An entry is
 * keyed by everything the answer depends on that the caller sends (identity id, role
 * attributes, config types, config overrides, list parameters), so identity changes need no
 * invalidation; everything else it depends on is owned by this service, whose every change is
 * published on `edge.policy.>`. Each replica empties its cache when it publishes a change and
 * when it hears one, and an entry lives at most `ttlMs`, so a missed event cannot keep an answer
 * stale for longer than that. Session creation never reads from here.
 *
 * With `version` (where the tables stand, as one small read), an entry is kept under the version
 * read before its answer was loaded. When its time runs out, the version is read again: while it
 * has not moved, nothing the answer was read from has changed (not even behind every replica's
 * back), so the entry is given another `ttlMs` instead of being evaluated again. A network of
 * many clients polling their lists then costs a version read per client and `ttlMs`, not an
 * evaluation of each one's services.
 */

export interface EvaluationCacheOptions<T> {
  /** How long an entry may be served; 0 turns the cache off. */
  ttlMs: number;
  /** The most weight kept (see `weigh`); the oldest entries go first. */
  maxWeight?: number;
  /** An answer's weight, e.g. how many services it holds; 1 by default. */
  weigh?: (value: T) => number;
  /** Where the tables the answers are read from stand now; moves with every change to them. */
  version?: () => Promise<string>;
  now?: () => number;
}

export interface EvaluationCache<T> {
  /** The cached answer for `key`, or `load()`'s, kept unless a change came in meanwhile. */
  through(key: string, load: () => Promise<T>): Promise<T>;
  /** Forgets every answer, including those being computed now. */
  invalidate(): void;
  readonly size: number;
}

/** An answer kept, until when, its weight, and the version of the tables it was read at. */
interface Entry<T> {
  value: T;
  until: number;
  weight: number;
  version?: string;
}

export function createEvaluationCache<T>({ ttlMs, maxWeight = 10_000, weigh = () => 1, version, now = Date.now }: EvaluationCacheOptions<T>): EvaluationCache<T> {
  const entries = new Map<string, Entry<T>>();
  let weight = 0;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (e && entries.delete(key)) weight -= e.weight;
  };
  // Bumped on every change: a load that started before a change must not be stored after it.
  let generation = 0;
  // Misses being answered, by key, with the generation they started at: a caller missing the
  // same key meanwhile shares the answer instead of evaluating it again (clients arriving
  // together after a change, or at a cold start, ask for the same lists at once).
  const pending = new Map<string, { generation: number; answer: Promise<T> }>();

  const miss = async (key: string, hit: Entry<T> | undefined, load: () => Promise<T>): Promise<T> => {
    const started = generation;
    const at = version && await version();
    // Confirmed by the tables, unless a change was heard meanwhile (it emptied the cache).
    if (hit && at !== undefined && hit.version === at && started === generation) {
      hit.until = now() + ttlMs;
      // The newest again: the oldest entries make room first.
      entries.delete(key);
      entries.set(key, hit);
      return hit.value;
    }
    const value = await load();
    const w = Math.max(1, weigh(value));
    if (started === generation && w <= maxWeight) {
      drop(key);
      while (weight + w > maxWeight) drop(entries.keys().next().value!);
      entries.set(key, { value, until: now() + ttlMs, weight: w, ...(at !== undefined ? { version: at } : {}) });
      weight += w;
    }
    return value;
  };

  return {
    async through(key, load) {
      if (ttlMs <= 0) return load();
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.value;
      // Only a miss started since the last change is shared: one from before it may answer what the change ended.
      const running = pending.get(key);
      if (running && running.generation === generation) return running.answer;
      const mine = { generation, answer: miss(key, hit, load) };
      pending.set(key, mine);
      try {
        return await mine.answer;
      } finally {
        if (pending.get(key) === mine) pending.delete(key);
      }
    },
    invalidate() {
      generation++;
      entries.clear();
      weight = 0;
    },
    get size() {
      return entries.size;
    },
  };
}
