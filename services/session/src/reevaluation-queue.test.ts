/**
 * The queue's follow-up: each change is judged a second time `followUpMs` after its first pass,
 * once only, and not after the queue stopped.
 */
import { silentLogger } from '@edge/logging';
import { describe, expect, it, vi } from 'vitest';
import { createReevaluationQueue } from './reevaluation-queue.js';
import type { SessionFilter } from './store/session.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue over no sessions, recording the filter of each page it reads. */
function queue(followUpMs: number) {
  const pages: SessionFilter[] = [];
  const q = createReevaluationQueue({
    records: { page: async (filter) => { pages.push(filter); return []; }, deleteOf: async () => 0 },
    reevaluation: { staleAmong: async () => [] },
    peers: { matchIdentities: async () => [], matchServices: async () => [] },
    log: silentLogger(), delayMs: 1, followUpMs,
  });
  return { q, pages };
}

describe('re-evaluation follow-up', () => {
  it('judges a change again once, followUpMs after its first pass', async () => {
    const { q, pages } = queue(100);
    await q.add({ identities: { ids: ['i-1'] } });
    expect(pages).toHaveLength(1);
    await sleep(40);
    expect(pages).toHaveLength(1);
    await vi.waitFor(() => expect(pages).toHaveLength(2), { timeout: 5_000 });
    expect(pages[1]).toEqual(pages[0]);
    expect(pages[1]!.identityIds).toEqual(['i-1']);
    await sleep(250);
    expect(pages).toHaveLength(2);
    await q.stop();
  });

  it('logs a failed follow-up once, however many changes it holds', async () => {
    let reads = 0;
    const warned: unknown[] = [];
    const log = Object.assign(Object.create(silentLogger()) as ReturnType<typeof silentLogger>, { warn: (...args: unknown[]) => void warned.push(args) });
    const q = createReevaluationQueue({
      records: { page: async () => { if (++reads > 1) throw new Error('the database is down'); return []; }, deleteOf: async () => 0 },
      reevaluation: { staleAmong: async () => [] },
      peers: { matchIdentities: async () => [], matchServices: async () => [] },
      log, delayMs: 1, followUpMs: 20,
    });
    await Promise.all(['i-1', 'i-2', 'i-3'].map((id) => q.add({ identities: { ids: [id] } })));
    await vi.waitFor(() => expect(reads).toBe(2), { timeout: 5_000 });
    await sleep(50);
    expect(warned).toHaveLength(1);
    await q.stop();
  });

  it('makes no follow-up when it is off, nor once the queue stopped', async () => {
    const off = queue(0);
    await off.q.add({ services: { ids: ['s-1'] } });
    const stopping = queue(50);
    await stopping.q.add({ services: { ids: ['s-1'] } });
    await stopping.q.stop();
    await sleep(150);
    expect(off.pages).toHaveLength(1);
    expect(stopping.pages).toHaveLength(1);
    await off.q.stop();
  });
});
