/**
 * Bounds on authentication work, in memory per auth process: how many authentications run at
 * once (the password hash included), and how many attempts a source IP or a username may make
 * per sliding window. OpenZiti bounds concurrent authentications only (an adaptive window); the
 * per-IP and per-username windows also slow down guessing from one place or at one account.
 */

/** A bound on concurrent work: take a slot or be refused at once. */
export function createConcurrencyLimit(max: number) {
  let active = 0;
  return {
    /** A release function when a slot was free; undefined when all `max` are taken. */
    tryAcquire(): (() => void) | undefined {
      if (active >= max) return undefined;
      active++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        active--;
      };
    },
    active: () => active,
  };
}

interface Counts {
  windowStart: number;
  current: number;
  previous: number;
}

/**
 * At most `limit` hits per key in any `windowMs`, estimated with the sliding-window counter
 * (the previous fixed window weighted by how much of it still overlaps): O(1) per key, and
 * bursts at a window edge are not let through twice.
 */
export function createSlidingWindowLimit(limit: number, windowMs: number, maxKeys = 100_000) {
  const byKey = new Map<string, Counts>();

  function countsAt(key: string, now: number): Counts {
    const start = now - (now % windowMs);
    const c = byKey.get(key);
    if (!c) return { windowStart: start, current: 0, previous: 0 };
    if (c.windowStart === start) return c;
    // one window on: the current count becomes the previous; further on, both are stale
    const previous = c.windowStart === start - windowMs ? c.current : 0;
    return { windowStart: start, current: 0, previous };
  }

  function evictStale(now: number): void {
    if (byKey.size < maxKeys) return;
    for (const [key, c] of byKey) if (c.windowStart < now - 2 * windowMs) byKey.delete(key);
    // still full of live keys: forget the oldest rather than grow without bound
    while (byKey.size >= maxKeys) byKey.delete(byKey.keys().next().value!);
  }

  return {
    /** Counts a hit for `key`; false (not counted) when the key is over its limit. */
    hit(key: string, now = Date.now()): boolean {
      const c = countsAt(key, now);
      const overlap = 1 - (now - c.windowStart) / windowMs;
      if (c.previous * overlap + c.current >= limit) return false;
      c.current++;
      if (!byKey.has(key)) evictStale(now);
      byKey.set(key, c);
      return true;
    },
  };
}
