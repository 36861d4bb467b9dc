import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { PostgresQueryCompiler, sql, type Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryBus, createNatsBus, EVENT_ID_HEADER, streamName, type Bus, type BusMessage } from '@edge/bus';
import { createDb, dropSchema, migrate, openConnection, type DbConnection } from '@edge/db';
import { silentLogger } from '@edge/logging';
import { runWithContext } from '@edge/rpc';
import { startNatsServer } from '@edge/testing';
import { createInbox, createOutbox, scheduleReconcile, type Outbox } from './index.js';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const log = silentLogger();

// The tables as a service's migration creates them (see tables.ts), and one of the service's own.
const MIGRATION = `
  CREATE TABLE items (id text PRIMARY KEY);
  CREATE TABLE outbox (
    id bigserial PRIMARY KEY, event_id text NOT NULL, subject text NOT NULL, ordering_key text,
    data jsonb NOT NULL, headers jsonb NOT NULL DEFAULT '{}', attempts integer NOT NULL DEFAULT 0,
    claimed_until timestamptz, created_at timestamptz NOT NULL DEFAULT now());
  CREATE INDEX outbox_ordering_key ON outbox (ordering_key, id);
  CREATE TABLE inbox (consumer text NOT NULL, event_id text NOT NULL,
    handled_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (consumer, event_id));
  CREATE TABLE reconciliations (name text PRIMARY KEY, claimed_until timestamptz NOT NULL, cursor text);`;

let migrations: string;
const prefixes: string[] = [];
beforeAll(async () => {
  migrations = await mkdtemp(join(tmpdir(), 'edge-outbox-'));
  await writeFile(join(migrations, '001_tables.sql'), MIGRATION);
});
afterAll(async () => {
  await rm(migrations, { recursive: true, force: true });
  const nc = await connect({ servers: NATS_URL });
  const jsm = await nc.jetstreamManager();
  for (const prefix of prefixes) await jsm.streams.delete(streamName(prefix)).catch(() => false);
  await nc.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await sleep(20);
  }
}

interface Setup { conn: DbConnection; bus: Bus; db: Kysely<any>; schema: string }

const backends: Array<[string, () => Promise<Omit<Setup, 'db' | 'schema'>>]> = [
  ['postgres and nats', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}.`;
    prefixes.push(prefix);
    return { conn: await openConnection({ url: DATABASE_URL, poolSize: 4 }), bus: await createNatsBus({ url: NATS_URL, subjectPrefix: prefix }) };
  }],
  ['embedded database and in-process bus', async () => ({ conn: await openConnection({ dataDir: ':memory:' }), bus: createMemoryBus({ retryDelayMs: 20 }) })],
];

/** Counts publishes per event id and records each key's order, publishing through to `bus`. */
function countingBus(bus: Bus) {
  const published = new Map<string, number>();
  const order: Array<{ key: string; n: number }> = [];
  const counting: Bus = {
    ...bus,
    async publish(subject, data, headers) {
      await bus.publish(subject, data, headers);
      const id = headers?.[EVENT_ID_HEADER] ?? '';
      published.set(id, (published.get(id) ?? 0) + 1);
      const d = data as { id: string; n: number };
      order.push({ key: d.id, n: d.n });
    },
  };
  return { bus: counting, published, order };
}

describe.each(backends)('outbox on %s', (_name, open) => {
  let s: Setup;
  const outboxes: Outbox[] = [];
  const make = (bus = s.bus, extra = {}) => {
    const o = createOutbox({ db: s.db, bus, name: 'test', log, pollMs: 200, ...extra });
    outboxes.push(o);
    return o;
  };

  beforeAll(async () => {
    const opened = await open();
    const schema = `test_outbox_${randomBytes(4).toString('hex')}`;
    await migrate(opened.conn, schema, migrations);
    s = { ...opened, schema, db: createDb<any>(opened.conn, schema) };
  });
  afterEach(async () => {
    await Promise.all(outboxes.splice(0).map((o) => o.stop()));
    await s.db.deleteFrom('outbox').execute();
  });
  afterAll(async () => {
    await s.bus.close();
    await dropSchema(s.conn, s.schema);
    await s.conn.close();
  });

  it('publishes an event recorded with its change once the transaction committed, with its request context, and deletes it', async () => {
    const outbox = make();
    const got: BusMessage[] = [];
    const sub = await s.bus.consume('g', 'edge.test.item.*', async (m) => { got.push(m); });
    outbox.start();
    const eventId = await runWithContext({ requestId: 'req-1', actorId: 'actor-1' }, () => outbox.transaction(async (trx) => {
      await trx.insertInto('items').values({ id: 'i1' }).execute();
      return outbox.enqueue(trx, 'edge.test.item.created', { id: 'i1' });
    }));
    await waitFor(() => got.length === 1);
    expect(got[0]).toMatchObject({ subject: 'edge.test.item.created', data: { id: 'i1' }, eventId, headers: { 'x-request-id': 'req-1', 'x-edge-actor': 'actor-1' } });
    await waitFor(async () => (await outbox.pending()) === 0);
    await sub.unsubscribe();
  });

  it('publishes nothing for a transaction that rolled back', async () => {
    const outbox = make();
    const got: unknown[] = [];
    const sub = await s.bus.consume('rollback', 'edge.test.rolled.*', async (m) => { got.push(m.data); });
    await expect(outbox.transaction(async (trx) => {
      await trx.insertInto('items').values({ id: 'r1' }).execute();
      await outbox.enqueue(trx, 'edge.test.rolled.created', { id: 'r1' });
      throw new Error('changed my mind');
    })).rejects.toThrow('changed my mind');
    expect(await outbox.flush()).toBe(0);
    await sleep(200);
    expect(got).toEqual([]);
    await sub.unsubscribe();
  });

  it('lets several relays (replicas) share the events without publishing one twice, each entity in order', async () => {
    const counted = countingBus(s.bus);
    const [one, two, ...more] = [1, 2, 3, 4].map(() => make(counted.bus, { batchSize: 7 }));
    const keys = ['a', 'b', 'c'];
    for (let t = 0; t < 30; t++) {
      await one.transaction(async (trx) => {
        for (let i = 0; i < 10; i++) await one.enqueue(trx, 'edge.test.order.updated', { id: keys[i % 3], n: t * 10 + i });
      });
    }
    one.start();
    two.start();
    await Promise.all([one.flush(), two.flush(), ...more.map((o) => o.flush())]);
    await waitFor(async () => (await one.pending()) === 0);
    expect(counted.published.size).toBe(300);
    expect([...counted.published.values()].every((n) => n === 1)).toBe(true);
    for (const key of keys) {
      const ns = counted.order.filter((o) => o.key === key).map((o) => o.n);
      expect(ns).toEqual([...ns].sort((a, b) => a - b));
    }
  });

  it('skips, through the inbox, an event its consumer already handled', async () => {
    // The in-process bus keeps both copies, as JetStream does for a repeat outside its window.
    const bus = createMemoryBus();
    const guarded = createInbox(s.db).guard(bus);
    const handled: unknown[] = [];
    await guarded.consume('dedupe', 'edge.test.twice', async (m) => { handled.push(m.data); });
    await bus.publish('edge.test.twice', 'x', { [EVENT_ID_HEADER]: 'e-1' });
    await bus.publish('edge.test.twice', 'x', { [EVENT_ID_HEADER]: 'e-1' });
    await bus.publish('edge.test.twice', 'y', { [EVENT_ID_HEADER]: 'e-2' });
    await waitFor(() => handled.length === 2);
    await sleep(100);
    expect(handled).toEqual(['x', 'y']);
    await bus.close();
  });

  // The statements of every event (its insert, the relay's claim and delete, the inbox's look-up
  // and record) are compiled once: building them cost each service more than the database spends
  // on them.
  it('records, relays and handles an event without building a query once one has gone through', async () => {
    const outbox = make();
    const handled: unknown[] = [];
    const sub = await createInbox(s.db).guard(s.bus).consume('warm', 'edge.test.warm.*', async (m) => { handled.push(m.data); });
    const send = (id: string) => outbox.transaction((trx) => outbox.enqueue(trx, 'edge.test.warm.created', { id }));
    const recorded = async (eventId: string) =>
      (await sql<{ n: number }>`select count(*)::int as n from ${sql.id(s.schema, 'inbox')} where event_id = ${eventId}`.execute(s.db)).rows[0]!.n === 1;
    const first = await send('w1');
    await waitFor(async () => {
      await outbox.flush();
      return recorded(first);
    });
    const compile = vi.spyOn(PostgresQueryCompiler.prototype, 'compileQuery');
    try {
      const second = await send('w2');
      await outbox.flush();
      await waitFor(() => recorded(second));
      // Raw statements (the checks of this test) aside.
      expect(compile.mock.calls.map(([node]) => node.kind).filter((k) => k !== 'RawNode')).toEqual([]);
    } finally {
      compile.mockRestore();
    }
    expect(handled).toEqual([{ id: 'w1' }, { id: 'w2' }]);
    await sub.unsubscribe();
  });

  it('runs a reconciliation on one replica per interval, each run within its budget, resuming at its cursor', async () => {
    const steps: Array<string | undefined> = [];
    const step = async (cursor: string | undefined) => {
      steps.push(cursor);
      await sleep(30);
      const next = Number(cursor ?? 0) + 1;
      return next < 6 ? String(next) : undefined;
    };
    const opts = { db: s.db, name: `r${randomBytes(3).toString('hex')}`, step, intervalMs: 3_600_000, budgetMs: 50, log };
    const first = scheduleReconcile(opts);
    const second = scheduleReconcile(opts);
    try {
      expect(await first.runNow()).toBe(true);
      expect(await second.runNow()).toBe(false);
      expect(steps).toEqual([undefined, '1']);
      // The next run, whichever replica makes it once the interval passed, picks up at '2'.
      await s.db.updateTable('reconciliations').set({ claimed_until: new Date(0) }).where('name', '=', opts.name).execute();
      expect(await second.runNow()).toBe(true);
      expect(steps).toEqual([undefined, '1', '2', '3']);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('runs a fill to the end of its pass past the budget, keeping its cursor and its claim on the way', async () => {
    const steps: Array<string | undefined> = [];
    const opts = { db: s.db, name: `r${randomBytes(3).toString('hex')}`, intervalMs: 3_600_000, budgetMs: 50, log };
    const claimOf = async () => s.db.selectFrom('reconciliations').select(['cursor', 'claimed_until']).where('name', '=', opts.name).executeTakeFirstOrThrow();
    const kept: Array<{ cursor: string | null; claimedFor: number }> = [];
    const first = scheduleReconcile({
      ...opts,
      step: async (cursor) => {
        steps.push(cursor);
        if (cursor === '3') {
          const row = await claimOf();
          kept.push({ cursor: row.cursor, claimedFor: new Date(row.claimed_until).getTime() - Date.now() });
        }
        await sleep(30);
        const next = Number(cursor ?? 0) + 1;
        return next < 6 ? String(next) : undefined;
      },
    });
    const second = scheduleReconcile({ ...opts, step: async () => undefined });
    try {
      expect(await first.runNow({ toEnd: true })).toBe(true);
      expect(steps).toEqual([undefined, '1', '2', '3', '4', '5']);
      // Past the first budget, the cursor was kept and the claim held: no other replica runs meanwhile.
      expect(kept).toEqual([{ cursor: '2', claimedFor: expect.any(Number) }]);
      expect(kept[0]!.claimedFor).toBeGreaterThan(30_000);
      // The pass is complete: the next one starts over, after the interval.
      expect((await claimOf()).cursor).toBeNull();
      expect(await second.runNow()).toBe(false);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('stops a fill after the step under way once its signal aborts, keeping its cursor', async () => {
    const steps: Array<string | undefined> = [];
    const stopping = new AbortController();
    const opts = { db: s.db, name: `r${randomBytes(3).toString('hex')}`, intervalMs: 3_600_000, log };
    const fill = scheduleReconcile({
      ...opts,
      step: async (cursor) => {
        steps.push(cursor);
        if (cursor === '2') stopping.abort();
        const next = Number(cursor ?? 0) + 1;
        return next < 20 ? String(next) : undefined;
      },
    });
    try {
      expect(await fill.runNow({ toEnd: true, signal: stopping.signal })).toBe(true);
      expect(steps).toEqual([undefined, '1', '2']);
      const row = await s.db.selectFrom('reconciliations').select('cursor').where('name', '=', opts.name).executeTakeFirstOrThrow();
      expect(row.cursor).toBe('3');
    } finally {
      await fill.stop();
    }
  });

  it('leaves the next run of a reconciliation whose step failed to whichever replica tries first', async () => {
    let failures = 1;
    const steps: Array<string | undefined> = [];
    const step = async (cursor: string | undefined) => {
      steps.push(cursor);
      if (failures-- > 0) throw new Error('a peer is not up yet');
      return undefined;
    };
    const opts = { db: s.db, name: `r${randomBytes(3).toString('hex')}`, step, intervalMs: 3_600_000, log };
    const first = scheduleReconcile(opts);
    const second = scheduleReconcile(opts);
    try {
      await expect(first.runNow()).rejects.toThrow('a peer is not up yet');
      expect(await second.runNow()).toBe(true);
      expect(steps).toEqual([undefined, undefined]);
      // A run that went through holds the interval.
      expect(await first.runNow()).toBe(false);
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});

describe('outbox while NATS is down', () => {
  it('answers the write at once, keeps the event, and delivers it once NATS is back', async () => {
    const nats = await startNatsServer();
    const conn = await openConnection({ url: DATABASE_URL, poolSize: 4 });
    const schema = `test_outbox_${randomBytes(4).toString('hex')}`;
    await migrate(conn, schema, migrations);
    const db = createDb<any>(conn, schema);
    const bus = await createNatsBus({ url: nats.url });
    const outbox = createOutbox({ db, bus, name: 'test', log, pollMs: 200 });
    try {
      const got: unknown[] = [];
      await bus.consume('down', 'edge.test.down.*', async (m) => { got.push(m.data); });
      outbox.start();
      await nats.stop();
      const started = Date.now();
      await outbox.transaction(async (trx) => {
        await trx.insertInto('items').values({ id: 'd1' }).execute();
        await outbox.enqueue(trx, 'edge.test.down.created', { id: 'd1' });
      });
      expect(Date.now() - started).toBeLessThan(1_000);
      await sleep(1_000);
      expect(await outbox.pending()).toBe(1);
      await nats.start();
      await waitFor(() => got.length === 1, 20_000);
      await waitFor(async () => (await outbox.pending()) === 0);
      await sleep(500);
      expect(got).toEqual([{ id: 'd1' }]);
    } finally {
      await outbox.stop();
      await bus.close().catch(() => undefined);
      await nats.close();
      await dropSchema(conn, schema);
      await conn.close();
    }
  });
});
