import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus } from './memory-bus.js';
import type { Bus } from './bus.js';
import { createHeardChanges, createHeldAnswers, holds, SETTLE_MS } from './held.js';

const SUBJECTS = ['edge.policy.>'];
/** Lets settled promises run their callbacks. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('answers held while no change is heard', () => {
  let bus: Bus | undefined;
  afterEach(async () => bus?.close());

  it('moves on with every event of its subjects, every bump and every reconnect, and not with other events', async () => {
    let reconnected: (() => void) | undefined;
    bus = createMemoryBus();
    const real = bus;
    const watched = { ...real, subscribe: real.subscribe.bind(real), onReconnect: (l: () => void) => { reconnected = l; } } as Bus;
    const changes = createHeardChanges(watched, 10_000, SUBJECTS);
    await changes.start();
    const start = changes.generation;
    await real.publish('edge.identity.identity.updated', { id: 'i' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changes.generation).toBe(start);
    await real.publish('edge.policy.service.updated', { id: 's', name: 's' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changes.generation).toBe(start + 1);
    changes.bump();
    reconnected!();
    expect(changes.generation).toBe(start + 3);
    await changes.stop();
  });

  it('grants no hold until a change heard has settled, and a hold ends with the next change or its time', async () => {
    let t = 50_000;
    bus = createMemoryBus();
    const changes = createHeardChanges(bus, 10_000, SUBJECTS, () => t);
    await changes.start();
    const quiet = changes.holdFrom(changes.generation);
    expect(quiet).toEqual({ generation: changes.generation, until: t + 10_000 });
    expect(holds(quiet, changes.generation, t + 9_999)).toBe(true);
    expect(holds(quiet, changes.generation, t + 10_000)).toBe(false);
    changes.bump();
    expect(holds(quiet, changes.generation, t)).toBe(false);
    // Just after a change another replica may not have heard it yet: answers are not held.
    expect(changes.holdFrom(changes.generation)).toBeUndefined();
    t += SETTLE_MS - 1;
    expect(changes.holdFrom(changes.generation)).toBeUndefined();
    t += 1;
    expect(changes.holdFrom(changes.generation)).toBeDefined();
    await changes.stop();
  });

  it('grants no hold when holding is off', () => {
    const changes = createHeardChanges(createMemoryBus(), 0, SUBJECTS);
    expect(changes.holdFrom(changes.generation)).toBeUndefined();
  });
  it('keeps answers while their hold stands, not those `keep` refuses, and at most `max` of them', async () => {
    let t = 50_000;
    const changes = createHeardChanges(createMemoryBus(), 10_000, SUBJECTS, () => t);
    const held = createHeldAnswers<string>(changes, 2, () => t);
    let loads = 0;
    const load = (v: string) => async () => `${v}${++loads}`;
    expect(await held.through('a', load('a'))).toBe('a1');
    expect(await held.through('a', load('a'))).toBe('a1');
    // Its time ran out, then a change was heard: asked for again each time.
    t += 10_000;
    expect(await held.through('a', load('a'))).toBe('a2');
    changes.bump();
    t += SETTLE_MS;
    expect(await held.through('a', load('a'))).toBe('a3');
    expect(await held.through('n', load('n'), () => false)).toBe('n4');
    expect(await held.through('n', load('n'), () => false)).toBe('n5');
    // a, used after b, stays when c makes room; b, the least recently used, goes.
    expect(await held.through('b', load('b'))).toBe('b6');
    expect(await held.through('a', load('a'))).toBe('a3');
    expect(await held.through('c', load('c'))).toBe('c7');
    expect(await held.through('a', load('a'))).toBe('a3');
    expect(await held.through('b', load('b'))).toBe('b8');
  });

  it('renews an answer used in the last fifth of its hold in the background, once, answering the held one meanwhile', async () => {
    let t = 50_000;
    const changes = createHeardChanges(createMemoryBus(), 10_000, SUBJECTS, () => t);
    const held = createHeldAnswers<string>(changes, 10, () => t);
    const pending: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];
    let loads = 0;
    const load = async () => {
      loads++;
      return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
    };
    const first = held.through('a', load);
    pending.shift()!.resolve('v1');
    expect(await first).toBe('v1');
    // Before the last fifth: held, nothing asked.
    t += 7_999;
    expect(await held.through('a', load)).toBe('v1');
    expect(loads).toBe(1);
    // In it: held, and asked once in the background however often it is used meanwhile.
    t += 1;
    expect(await held.through('a', load)).toBe('v1');
    expect(await held.through('a', load)).toBe('v1');
    expect(loads).toBe(2);
    pending.shift()!.resolve('v2');
    await flush();
    // The renewed answer holds anew, past the first hold's end.
    t = 50_000 + 10_000 + 5_000;
    expect(await held.through('a', load)).toBe('v2');
    expect(loads).toBe(2);

    // A renewal that fails leaves the held answer, and a later use asks again.
    t = 58_000 + 8_500;
    expect(await held.through('a', load)).toBe('v2');
    pending.shift()!.reject(new Error('unavailable'));
    await flush();
    expect(await held.through('a', load)).toBe('v2');
    expect(loads).toBe(4);
    // A change heard before the renewal is answered: the renewal is not held.
    changes.bump();
    pending.shift()!.resolve('v3');
    await flush();
    t += SETTLE_MS;
    const after = held.through('a', load);
    pending.shift()!.resolve('v4');
    expect(await after).toBe('v4');
  });

  it('gives the loader the answer it replaces: renewed, or whose hold ran out; none on a first ask', async () => {
    let t = 50_000;
    const changes = createHeardChanges(createMemoryBus(), 10_000, SUBJECTS, () => t);
    const held = createHeldAnswers<string>(changes, 10, () => t);
    const given: Array<string | undefined> = [];
    let n = 0;
    const load = async (previous?: string) => {
      given.push(previous);
      return `v${++n}`;
    };
    expect(await held.through('a', load)).toBe('v1');
    // Renewed in the background, given what it renews.
    t += 8_500;
    expect(await held.through('a', load)).toBe('v1');
    await flush();
    // Its hold ran out: asked again, given the answer that was held.
    t += 20_000;
    expect(await held.through('a', load)).toBe('v3');
    expect(given).toEqual([undefined, 'v1', 'v2']);
  });
});
