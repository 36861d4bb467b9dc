import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus, type Bus } from '@edge/bus';
import { createListChanges } from './list-changes.js';

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
});
