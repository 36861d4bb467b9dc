import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus, createNatsBus, EVENT_ID_HEADER, type Bus, type BusMessage, type Subscription } from './index.js';
import { streamName } from './subject.js';

const NATS_URL = process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Opens buses that share one network: NATS connections with one prefix, or one in-process bus. */
interface Network { peer(): Promise<Bus>; close(): Promise<void> }

function natsNetwork(prefix: string): Network {
  const buses: Bus[] = [];
  return {
    async peer() {
      const bus = await createNatsBus({ url: NATS_URL, subjectPrefix: prefix, name: 'bus-test' });
      buses.push(bus);
      return bus;
    },
    async close() { await Promise.all(buses.splice(0).map((b) => b.close())); },
  };
}

function memoryNetwork(): Network {
  let bus: Bus | undefined;
  return {
    async peer() { return (bus ??= createMemoryBus({ retryDelayMs: 20 })); },
    async close() { await bus?.close(); bus = undefined; },
  };
}

const prefixes: string[] = [];
function randomPrefix(): string {
  const prefix = `t${randomBytes(4).toString('hex')}.`;
  prefixes.push(prefix);
  return prefix;
}

afterAll(async () => {
  const nc = await connect({ servers: NATS_URL });
  const jsm = await nc.jetstreamManager();
  for (const prefix of prefixes) await jsm.streams.delete(streamName(prefix)).catch(() => false);
  await nc.close();
});

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ['nats', () => natsNetwork(randomPrefix())],
  ['memory', () => memoryNetwork()],
] as const)('%s bus', (_kind, makeNetwork) => {
  let net: Network;
  afterEach(async () => { await net.close(); });

  it('delivers a published message to a consumer, subject without prefix', async () => {
    net = makeNetwork();
    const bus = await net.peer();
    const got: BusMessage<{ id: string }>[] = [];
    await bus.consume<{ id: string }>('g', 'edge.test.item.*', async (m) => { got.push(m); });
    await bus.publish('edge.test.item.created', { id: 'a' }, { 'x-request-id': 'r1' });
    await waitFor(() => got.length === 1);
    expect(got[0]).toMatchObject({
      subject: 'edge.test.item.created', data: { id: 'a' }, redelivered: false,
      headers: { 'x-request-id': 'r1' },
    });
  });

  it('shares messages between two consumers of one group, each handled once', async () => {
    net = makeNetwork();
    const handled: number[] = [];
    const handler = async (m: BusMessage<number>) => { handled.push(m.data); };
    await (await net.peer()).consume('workers', 'edge.test.job', handler);
    await (await net.peer()).consume('workers', 'edge.test.job', handler);
    const publisher = await net.peer();
    for (let i = 0; i < 20; i++) await publisher.publish('edge.test.job', i);
    await waitFor(() => handled.length >= 20);
    await sleep(200);
    expect([...handled].sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
  });

  it('gives every message to each of two groups', async () => {
    net = makeNetwork();
    const bus = await net.peer();
    const a: number[] = [];
    const b: number[] = [];
    await bus.consume<number>('a', 'edge.test.job', async (m) => { a.push(m.data); });
    await bus.consume<number>('b', 'edge.test.job', async (m) => { b.push(m.data); });
    for (let i = 0; i < 5; i++) await bus.publish('edge.test.job', i);
    await waitFor(() => a.length === 5 && b.length === 5);
    expect(a.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(b.sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('delivers what was published while the group had no running consumer', async () => {
    net = makeNetwork();
    const first = await net.peer();
    const got: string[] = [];
    const sub = await first.consume<string>('late', 'edge.test.note', async (m) => { got.push(m.data); });
    await sub.unsubscribe();
    const publisher = await net.peer();
    await publisher.publish('edge.test.note', 'while down 1');
    await publisher.publish('edge.test.note', 'while down 2');
    const restarted = await net.peer();
    await restarted.consume<string>('late', 'edge.test.note', async (m) => { got.push(m.data); });
    await waitFor(() => got.length === 2);
    expect(got).toEqual(['while down 1', 'while down 2']);
  });

  it('lets a group that starts after a publish catch up on it', async () => {
    net = makeNetwork();
    const bus = await net.peer();
    await bus.publish('edge.test.early', { n: 1 });
    const got: unknown[] = [];
    await bus.consume('newcomer', 'edge.test.early', async (m) => { got.push(m.data); });
    await waitFor(() => got.length === 1);
    expect(got).toEqual([{ n: 1 }]);
  });

  it('redelivers a message whose handler threw, marked redelivered', async () => {
    net = makeNetwork();
    const bus = await net.peer();
    const seen: boolean[] = [];
    await bus.consume('flaky', 'edge.test.retry', async (m) => {
      seen.push(m.redelivered);
      if (seen.length === 1) throw new Error('transient');
    });
    await bus.publish('edge.test.retry', 'x');
    await waitFor(() => seen.length === 2);
    await sleep(100);
    expect(seen).toEqual([false, true]);
  });

  it('broadcasts to every live subscriber', async () => {
    net = makeNetwork();
    const got: string[] = [];
    await (await net.peer()).subscribe<string>('edge.test.cache.>', async (m) => { got.push(`one:${m.data}`); });
    await (await net.peer()).subscribe<string>('edge.test.cache.>', async (m) => { got.push(`two:${m.subject}`); });
    await (await net.peer()).publish('edge.test.cache.evict', 'k');
    await waitFor(() => got.length === 2);
    expect(got.sort()).toEqual(['one:k', 'two:edge.test.cache.evict']);
  });

  it('hands work and broadcast handlers the event id, and drops a broadcast repeat of it', async () => {
    net = makeNetwork();
    const bus = await net.peer();
    const worked: Array<string | undefined> = [];
    const heard: Array<string | undefined> = [];
    await bus.consume('ids', 'edge.test.ided', async (m) => { worked.push(m.eventId); });
    await bus.subscribe('edge.test.ided', async (m) => { heard.push(m.eventId); });
    await bus.publish('edge.test.ided', 1, { [EVENT_ID_HEADER]: 'ev-1' });
    await bus.publish('edge.test.ided', 1, { [EVENT_ID_HEADER]: 'ev-1' });
    await bus.publish('edge.test.ided', 2, { [EVENT_ID_HEADER]: 'ev-2' });
    await bus.publish('edge.test.ided', 3);
    await waitFor(() => heard.length === 3 && worked.length >= 3);
    await sleep(200);
    expect(heard).toEqual(['ev-1', 'ev-2', undefined]);
    expect(worked).toContain('ev-2');
  });

  it('handles up to `concurrency` messages of one subscriber at once', async () => {
    net = makeNetwork();
    const bus = await net.peer();
    let running = 0;
    let most = 0;
    let handled = 0;
    await bus.consume('wide', 'edge.test.wide', async () => {
      most = Math.max(most, ++running);
      await sleep(50);
      running--;
      handled++;
    }, { concurrency: 4 });
    for (let i = 0; i < 12; i++) await bus.publish('edge.test.wide', i);
    await waitFor(() => handled === 12);
    expect(most).toBe(4);
  });

  it('stops delivering after unsubscribe', async () => {
    net = makeNetwork();
    const bus = await net.peer();
    const got: unknown[] = [];
    const subs: Subscription[] = [
      await bus.subscribe('edge.test.off', async (m) => { got.push(m.data); }),
      await bus.consume('off', 'edge.test.off', async (m) => { got.push(m.data); }),
    ];
    await Promise.all(subs.map((s) => s.unsubscribe()));
    await bus.publish('edge.test.off', 1);
    await sleep(200);
    expect(got).toEqual([]);
  });
});

describe('nats bus', () => {
  it('isolates subject prefixes', async () => {
    const a = natsNetwork(randomPrefix());
    const b = natsNetwork(randomPrefix());
    try {
      const gotA: unknown[] = [];
      const gotB: unknown[] = [];
      const busA = await a.peer();
      const busB = await b.peer();
      await busA.consume('g', 'edge.test.iso', async (m) => { gotA.push(m.data); });
      await busB.consume('g', 'edge.test.iso', async (m) => { gotB.push(m.data); });
      await busB.subscribe('edge.test.iso', async (m) => { gotB.push(m.data); });
      await busA.publish('edge.test.iso', 'for a');
      await waitFor(() => gotA.length === 1);
      await sleep(200);
      expect(gotB).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('stores an event published twice (a retry after a lost ack) once', async () => {
    const net = natsNetwork(randomPrefix());
    try {
      const bus = await net.peer();
      await bus.publish('edge.test.twice', 'a', { [EVENT_ID_HEADER]: 'same' });
      await bus.publish('edge.test.twice', 'a', { [EVENT_ID_HEADER]: 'same' });
      await bus.publish('edge.test.twice', 'b', { [EVENT_ID_HEADER]: 'other' });
      const got: unknown[] = [];
      await bus.consume('once', 'edge.test.twice', async (m) => { got.push(m.data); });
      await waitFor(() => got.length === 2);
      await sleep(200);
      expect(got).toEqual(['a', 'b']);
    } finally {
      await net.close();
    }
  });

  it('survives a full restart of the consuming process', async () => {
    const net = natsNetwork(randomPrefix());
    try {
      const before = await net.peer();
      await before.consume('svc', 'edge.test.restart', async () => {});
      await before.close();
      await (await net.peer()).publish('edge.test.restart', 'missed');
      const got: unknown[] = [];
      await (await net.peer()).consume('svc', 'edge.test.restart', async (m) => { got.push(m.data); });
      await waitFor(() => got.length === 1);
      expect(got).toEqual(['missed']);
    } finally {
      await net.close();
    }
  });
});
