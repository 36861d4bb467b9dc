import { describe, expect, it } from 'vitest';
import { createEvaluationCache } from './evaluation-cache.js';

describe('evaluation cache', () => {
  it('answers from the cache until the entry expires', async () => {
    let t = 0;
    let loads = 0;
    const cache = createEvaluationCache<number>({ ttlMs: 1000, now: () => t });
    const load = async () => ++loads;
    expect(await cache.through('k', load)).toBe(1);
    t = 999;
    expect(await cache.through('k', load)).toBe(1);
    t = 1000;
    expect(await cache.through('k', load)).toBe(2);
    expect(await cache.through('other', load)).toBe(3);
  });

  it('forgets everything on a change, and does not keep an answer computed across one', async () => {
    const cache = createEvaluationCache<string>({ ttlMs: 60_000 });
    await cache.through('k', async () => 'before');
    cache.invalidate();
    expect(await cache.through('k', async () => 'after')).toBe('after');
    // A load in flight while a change arrives is answered, but not cached.
    let release!: () => void;
    const slow = cache.through('slow', () => new Promise<string>((r) => { release = () => r('stale'); }));
    cache.invalidate();
    release();
    expect(await slow).toBe('stale');
    expect(await cache.through('slow', async () => 'fresh')).toBe('fresh');
  });

  it('keeps at most maxWeight, dropping the oldest', async () => {
    const cache = createEvaluationCache<number>({ ttlMs: 60_000, maxWeight: 2 });
    let loads = 0;
    for (const k of ['a', 'b', 'c']) await cache.through(k, async () => ++loads);
    expect(cache.size).toBe(2);
    expect(await cache.through('a', async () => ++loads)).toBe(4);
    expect(await cache.through('c', async () => ++loads)).toBe(3);
  });

  it('weighs answers by what they hold, and does not keep one heavier than the whole budget', async () => {
    const cache = createEvaluationCache<number[]>({ ttlMs: 60_000, maxWeight: 10, weigh: (v) => v.length });
    await cache.through('six', async () => [1, 2, 3, 4, 5, 6]);
    await cache.through('three', async () => [1, 2, 3]);
    expect(cache.size).toBe(2);
    // Five more do not fit beside nine: the oldest goes.
    await cache.through('five', async () => [1, 2, 3, 4, 5]);
    expect(cache.size).toBe(2);
    expect(await cache.through('six', async () => [0])).toEqual([0]);
    await cache.through('huge', async () => new Array(11).fill(0));
    expect(await cache.through('huge', async () => [])).toEqual([]);
  });

  it('is off with a ttl of 0', async () => {
    const cache = createEvaluationCache<number>({ ttlMs: 0 });
    let loads = 0;
    await cache.through('k', async () => ++loads);
    expect(await cache.through('k', async () => ++loads)).toBe(2);
    expect(cache.size).toBe(0);
  });
});
