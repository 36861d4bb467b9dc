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

  it('answers callers missing the same key at once with one load, but not across a change', async () => {
    const cache = createEvaluationCache<string>({ ttlMs: 60_000 });
    const releases: Array<(v: string) => void> = [];
    let loads = 0;
    const load = () => new Promise<string>((r) => { loads++; releases.push(r); });
    const first = cache.through('k', load);
    const second = cache.through('k', load);
    const other = cache.through('other', load);
    expect(loads).toBe(2);
    // A change while it loads: a caller arriving after it loads anew, and only its answer is kept.
    cache.invalidate();
    const third = cache.through('k', load);
    expect(loads).toBe(3);
    releases[0]!('before');
    releases[1]!('other');
    releases[2]!('after');
    expect([await first, await second, await other, await third]).toEqual(['before', 'before', 'other', 'after']);
    expect(await cache.through('k', load)).toBe('after');
    expect(loads).toBe(3);
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

  describe('with the tables\' version', () => {
    const setup = () => {
      const clock = { t: 0, v: '1.1', reads: 0, loads: 0 };
      const cache = createEvaluationCache<number>({
        ttlMs: 1000, now: () => clock.t,
        version: async () => {
          clock.reads++;
          return clock.v;
        },
      });
      const load = async () => ++clock.loads;
      return { clock, cache, load };
    };

    it('keeps an expired answer another ttl while the version has not moved, without loading it again', async () => {
      const { clock, cache, load } = setup();
      expect(await cache.through('k', load)).toBe(1);
      clock.t = 1000;
      expect(await cache.through('k', load)).toBe(1);
      expect(clock.loads).toBe(1);
      // Confirmed at 1000: kept until 2000 without another read.
      const reads = clock.reads;
      clock.t = 1999;
      expect(await cache.through('k', load)).toBe(1);
      expect(clock.reads).toBe(reads);
    });

    it('counts a renewed answer as the newest when making room', async () => {
      let t = 0;
      const cache = createEvaluationCache<string>({ ttlMs: 1000, maxWeight: 2, now: () => t, version: async () => '1.1' });
      await cache.through('a', async () => 'a1');
      await cache.through('b', async () => 'b1');
      t = 1000;
      // Renewed: now newer than b.
      expect(await cache.through('a', async () => 'a2')).toBe('a1');
      await cache.through('c', async () => 'c1');
      expect(await cache.through('a', async () => 'a3')).toBe('a1');
      expect(await cache.through('b', async () => 'b2')).toBe('b2');
    });

    it('loads again once the version has moved, and keeps the new answer under the new version', async () => {
      const { clock, cache, load } = setup();
      await cache.through('k', load);
      clock.v = '2.1';
      // Not read before the time runs out: events empty the cache meanwhile.
      expect(await cache.through('k', load)).toBe(1);
      clock.t = 1000;
      expect(await cache.through('k', load)).toBe(2);
      clock.t = 2000;
      expect(await cache.through('k', load)).toBe(2);
      clock.v = '2.2';
      clock.t = 3000;
      expect(await cache.through('k', load)).toBe(3);
    });

    it('keeps an answer under the version read before it was loaded, so a change during the load is seen next time', async () => {
      const { clock, cache } = setup();
      await cache.through('k', async () => {
        // Committed while the answer is being read: the answer may or may not hold it.
        clock.v = '1.2';
        return 7;
      });
      clock.t = 1000;
      expect(await cache.through('k', async () => 8)).toBe(8);
    });

    it('does not renew an answer when a change is heard while the version is read', async () => {
      let release!: () => void;
      let t = 0;
      const cache = createEvaluationCache<string>({ ttlMs: 1000, now: () => t, version: () => new Promise((r) => { release = () => r('1.1'); }) });
      const first = cache.through('k', async () => 'old');
      release();
      await first;
      t = 1000;
      const renewal = cache.through('k', async () => 'new');
      cache.invalidate();
      release();
      expect(await renewal).toBe('new');
    });
  });
});
