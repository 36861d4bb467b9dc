import { describe, expect, it } from 'vitest';
import { createMemoryBus } from './memory-bus.js';

describe('memory bus', () => {
  it('never delivers inside the call stack of publish', async () => {
    const bus = createMemoryBus();
    let inPublish = false;
    const calls: boolean[] = [];
    await bus.consume('g', 'edge.test.sync', async () => { calls.push(inPublish); });
    await bus.subscribe('edge.test.sync', async () => { calls.push(inPublish); });
    await new Promise((resolve) => setImmediate(resolve));
    inPublish = true;
    const published = bus.publish('edge.test.sync', 1);
    inPublish = false;
    await published;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([false, false]);
    await bus.close();
  });

  it('gives up after maxAttempts deliveries of a failing message', async () => {
    const bus = createMemoryBus({ retryDelayMs: 1, maxAttempts: 3 });
    let attempts = 0;
    await bus.consume('g', 'edge.test.poison', async () => {
      attempts++;
      throw new Error('always');
    });
    await bus.publish('edge.test.poison', 'x');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(attempts).toBe(3);
    await bus.close();
  });

  it('hands a JSON copy to each handler, as the wire would', async () => {
    const bus = createMemoryBus();
    const got: unknown[] = [];
    await bus.subscribe('edge.test.copy', async (m) => { got.push(m.data); });
    const at = new Date('2024-01-02T03:04:05.000Z');
    await bus.publish('edge.test.copy', { at, gone: undefined });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(got).toEqual([{ at: '2024-01-02T03:04:05.000Z' }]);
    await bus.close();
  });

  it('rejects publish after close', async () => {
    const bus = createMemoryBus();
    await bus.close();
    await expect(bus.publish('edge.test.x', 1)).rejects.toThrow(/closed/);
  });
});
