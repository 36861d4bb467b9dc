import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus, type Bus } from '@edge/bus';
import { createHeldAnswers, createListChanges, holds, SETTLE_MS } from './list-changes.js';

/** Lets the bus deliver what was published. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('policy changes heard by the gateway', () => {
  let bus: Bus | undefined;
  afterEach(async () => bus?.close());

  it('moves on with every edge.policy and service-configs event and every bump, and not with other events', async () => {
    bus = createMemoryBus();
    const changes = createListChanges(bus, 10_000);
    await changes.start();
    const start = changes.generation;
    await bus.publish('edge.identity.identity.updated', { id: 'i' });
    await bus.publish('edge.auth.principal.updated', { identityId: 'i' });
    await settle();
    expect(changes.generation).toBe(start);
    await bus.publish('edge.policy.service.updated', { id: 's', name: 's' });
    await settle();
    expect(changes.generation).toBe(start + 1);
    await bus.publish('edge.policy.posture-check.deleted', { id: 'p', name: 'p' });
    await bus.publish('edge.identity.service-configs.changed', { identityId: 'i' });
    await settle();
    changes.bump();
    expect(changes.generation).toBe(start + 4);
    await changes.stop();
  });

  it('moves on when the connection to the bus comes back', async () => {
    let reconnected: (() => void) | undefined;
    const fake = {
      onReconnect: (listener: () => void) => { reconnected = listener; },
      subscribe: async () => ({ unsubscribe: async () => undefined }),
    } as unknown as Bus;
    const changes = createListChanges(fake, 10_000);
    await changes.start();
    const start = changes.generation;
    reconnected!();
    expect(changes.generation).toBe(start + 1);
  });

  it('grants no hold until a change heard has settled, and a hold ends with the next change or its time', async () => {
    let t = 50_000;
    bus = createMemoryBus();
    const changes = createListChanges(bus, 10_000, () => t);
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
    const changes = createListChanges(createMemoryBus(), 0);
    expect(changes.holdFrom(changes.generation)).toBeUndefined();
  });
  it('keeps answers while their hold stands, not those `keep` refuses, and at most `max` of them', async () => {
    let t = 50_000;
    const changes = createListChanges(createMemoryBus(), 10_000, () => t);
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
});
