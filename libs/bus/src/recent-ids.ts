/** A bounded memory of recently seen event ids, for dropping repeats of a broadcast. */

/** Ids remembered per subscriber: far more than a retry after a lost ack can lag behind. */
const DEFAULT_CAPACITY = 10_000;

/** Remembers the last `capacity` ids; `firstSight` is true once per id while it is remembered. */
export function createRecentIds(capacity = DEFAULT_CAPACITY) {
  const seen = new Set<string>();
  return {
    firstSight(id: string | undefined): boolean {
      if (id === undefined) return true;
      if (seen.has(id)) return false;
      seen.add(id);
      // A Set iterates in insertion order: the first entry is the oldest.
      if (seen.size > capacity) seen.delete(seen.values().next().value!);
      return true;
    },
  };
}
