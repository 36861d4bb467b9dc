import { describe, expect, it } from 'vitest';
import { createConcurrencyLimit, createSlidingWindowLimit } from './rate-limit.js';

describe('concurrency limit', () => {
  it('hands out at most max slots and takes each back once', () => {
    const limit = createConcurrencyLimit(2);
    const a = limit.tryAcquire()!;
    const b = limit.tryAcquire()!;
    expect(limit.tryAcquire()).toBeUndefined();
    a();
    a();
    expect(limit.active()).toBe(1);
    expect(limit.tryAcquire()).toBeDefined();
    b();
  });
});

describe('sliding window limit', () => {
  const minute = 60_000;

  it('allows the limit per key per window and refuses the rest without counting them', () => {
    const w = createSlidingWindowLimit(3, minute);
    const t = 10 * minute;
    expect([1, 2, 3, 4].map(() => w.hit('ip', t))).toEqual([true, true, true, false]);
    expect(w.hit('other', t)).toBe(true);
    // half a window later half of the previous window still counts (1.5 of 3): two more
    expect([1, 2, 3].map(() => w.hit('ip', t + 1.5 * minute))).toEqual([true, true, false]);
    // two windows later everything is forgotten
    expect([1, 2, 3].map(() => w.hit('ip', t + 3 * minute))).toEqual([true, true, true]);
  });

  it('does not let a burst at a window edge through twice', () => {
    const w = createSlidingWindowLimit(10, minute);
    const edge = 20 * minute;
    for (let i = 0; i < 10; i++) expect(w.hit('k', edge - 1)).toBe(true);
    // a fixed window would allow 10 more right after the edge; the sliding estimate allows 1
    expect([1, 2, 3].map(() => w.hit('k', edge + 1))).toEqual([true, false, false]);
  });

  it('stays bounded in keys', () => {
    const w = createSlidingWindowLimit(1, minute, 100);
    for (let i = 0; i < 1000; i++) expect(w.hit(`k${i}`, 0)).toBe(true);
  });
});
