import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePortBlock } from './ports.js';

const held: Server[] = [];
afterAll(() => held.forEach((s) => s.close()));

describe('freePortBlock', () => {
  it('returns a block below the ephemeral range whose every port can be bound', async () => {
    const base = await freePortBlock(20);
    expect(base).toBeGreaterThanOrEqual(10_000);
    expect(base + 20).toBeLessThanOrEqual(32768);
    for (let p = base; p < base + 20; p++) {
      const s = createServer();
      await new Promise<void>((resolve, reject) => s.once('error', reject).listen(p, '127.0.0.1', () => resolve()));
      held.push(s);
    }
  });

  it('never returns a block overlapping ports already taken', async () => {
    // Hold every port of a block, then ask repeatedly for blocks of the same size.
    const base = await freePortBlock(10);
    for (let p = base; p < base + 10; p++) {
      const s = createServer();
      await new Promise<void>((resolve) => s.listen(p, '127.0.0.1', () => resolve()));
      held.push(s);
    }
    for (let i = 0; i < 30; i++) {
      const other = await freePortBlock(10);
      expect(other + 10 <= base || other >= base + 10).toBe(true);
    }
  });

  it('never returns a block holding a port fetch refuses (10080), so a cluster\'s /metrics can be scraped', async () => {
    // The first candidate is 10000 … 10100, which holds 10080.
    const picks: number[] = [];
    const random = () => {
      const r = picks.length === 0 ? 0 : Math.random();
      picks.push(r);
      return r;
    };
    const base = await freePortBlock(101, 50, random);
    expect(picks.length).toBeGreaterThan(1);
    expect(base > 10080 || base + 101 <= 10080).toBe(true);
  });
});
