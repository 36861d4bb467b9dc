/**
 * A cache of evaluated service lists, the hottest read of the controller: every SDK asks for its
 * services again and again, and between policy changes the answer does not change. An entry is
 * keyed by everything the answer depends on that the caller sends (identity id, role
 * attributes, config types, config overrides, list parameters), so identity changes need no
 * invalidation; everything else it depends on is owned by this service, whose every change is
 * published on `edge.policy.>`. Each replica empties its cache when it publishes a change and
 * when it hears one, and an entry lives at most `ttlMs`, so a missed event cannot keep an answer
 * stale for longer than that. Session creation never reads from here.
 */

export interface EvaluationCacheOptions {
  /** How long an entry may be served; 0 turns the cache off. */
  ttlMs: number;
  /** The most entries kept; the oldest goes first. */
  maxEntries?: number;
  now?: () => number;
}

export interface EvaluationCache<T> {
  /** The cached answer for `key`, or `load()`'s, kept unless a change came in meanwhile. */
  through(key: string, load: () => Promise<T>): Promise<T>;
  /** Forgets every answer, including those being computed now. */
  invalidate(): void;
  readonly size: number;
}

export function createEvaluationCache<T>({ ttlMs, maxEntries = 10_000, now = Date.now }: EvaluationCacheOptions): EvaluationCache<T> {
  const entries = new Map<string, { value: T; until: number }>();
  // Bumped on every change: a load that started before a change must not be stored after it.
  let generation = 0;
  return {
    async through(key, load) {
      if (ttlMs <= 0) return load();
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.value;
      const started = generation;
      const value = await load();
      if (started === generation) {
        entries.delete(key);
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { value, until: now() + ttlMs });
      }
      return value;
    },
    invalidate() {
      generation++;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
