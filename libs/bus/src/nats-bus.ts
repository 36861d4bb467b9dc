/**
 * The NATS bus (distributed mode): JetStream durable consumers for work subscriptions, core
 * NATS for broadcast. Every subject carries `subjectPrefix` on the wire only.
 */
import type { Logger } from '@edge/logging';
import type { ConsumeOptions } from './bus.js';
import { createSlots } from './slots.js';
import {
  connect, headers as natsHeaders,
  type JsMsg, type Msg, type MsgHdrs, type NatsConnection,
} from 'nats';
import { EVENT_ID_HEADER, type Bus, type BusMessage, type Handler, type Subscription } from './bus.js';
import { ACK_WAIT_MS, ensureConsumer, ensureStream } from './nats-setup.js';
import { createRecentIds } from './recent-ids.js';
import { durableName, streamName } from './subject.js';
import { inPublishSpan, runInTraceContext } from './trace.js';

/** Options of `createNatsBus`. */
export interface NatsBusOptions {
  /** nats:// URL (comma-separated for several servers). */
  url: string;
  /** Prepended to every subject on the wire (e.g. `t8f3a.`), so tests are isolated. */
  subjectPrefix?: string;
  /** Connection name shown by the server. */
  name?: string;
  log?: Logger;
}

const MAX_BUFFERED = 16;
const MAX_NAK_DELAY_MS = 30_000;

/** Connects to NATS and ensures the stream for the prefix exists. */
export async function createNatsBus(opts: NatsBusOptions): Promise<Bus> {
  const prefix = opts.subjectPrefix ?? '';
  const log = opts.log;
  const nc = await connect({ servers: opts.url.split(','), name: opts.name, maxReconnectAttempts: -1 });
  const link = { connected: true, reconnected: new Set<() => void>() };
  void watchStatus(nc, link, log);
  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream();
  const stream = streamName(prefix);
  await ensureStream(jsm, stream, prefix);
  const subscriptions = new Set<Subscription>();
  const unprefix = (subject: string) => (subject.startsWith(prefix) ? subject.slice(prefix.length) : subject);

  const track = (sub: Subscription): Subscription => {
    const tracked = { unsubscribe: async () => { subscriptions.delete(tracked); await sub.unsubscribe(); } };
    subscriptions.add(tracked);
    return tracked;
  };

  return {
    async publish(subject, data, headers) {
      // Disconnected, the client would buffer the message and wait for an ack until its timeout:
      // fail at once instead, so the caller (the outbox relay) backs off and keeps the event.
      if (!link.connected) throw new Error('nats is disconnected');
      await inPublishSpan(subject, headers, async (traced) => {
        const h = natsHeaders();
        for (const [key, value] of Object.entries(traced)) h.set(key, value);
        // The event id doubles as the message id: JetStream stores a repeat within its window once.
        await js.publish(prefix + subject, encode(data), { headers: h, msgID: traced[EVENT_ID_HEADER] });
      });
    },

    async consume<T>(group: string, subject: string, handler: Handler<T>, opts: ConsumeOptions = {}) {
      const durable = durableName(group, subject);
      await ensureConsumer(jsm, stream, durable, prefix + subject);
      const consumer = await js.consumers.get(stream, durable);
      const concurrency = Math.max(1, opts.concurrency ?? 1);
      const messages = await consumer.consume({ max_messages: Math.max(MAX_BUFFERED, concurrency) });
      const slots = createSlots(concurrency);
      let stopping = false;
      const loop = (async () => {
        for await (const m of messages) {
          // Buffered after unsubscribe: hand back at once so another replica takes it.
          if (stopping) m.nak();
          else await slots.run(() => handleWork(m, handler as Handler<unknown>, unprefix(m.subject), log, group));
        }
      })().catch((err: unknown) => log?.error({ err, group, subject }, 'bus consumer stopped'));
      return track({
        async unsubscribe() {
          stopping = true;
          await messages.close();
          await loop;
          await slots.idle();
        },
      });
    },

    async subscribe<T>(subject: string, handler: Handler<T>) {
      const sub = nc.subscribe(prefix + subject);
      await nc.flush(); // the server knows the interest once this resolves
      const recent = createRecentIds();
      const loop = (async () => {
        for await (const m of sub) {
          if (recent.firstSight(m.headers?.get(EVENT_ID_HEADER) || undefined)) await handleBroadcast(m, handler as Handler<unknown>, unprefix(m.subject), log);
        }
      })();
      return track({
        async unsubscribe() {
          sub.unsubscribe();
          await loop;
        },
      });
    },

    onReconnect(listener) {
      link.reconnected.add(listener);
    },

    async close() {
      link.reconnected.clear();
      await Promise.all([...subscriptions].map((s) => s.unsubscribe()));
      if (!nc.isClosed()) await nc.drain();
    },
  };
}

async function handleWork(
  m: JsMsg, handler: Handler<unknown>, subject: string, log: Logger | undefined, group: string,
): Promise<void> {
  const msg = decode(m, subject, m.redelivered, log);
  if (!msg) {
    m.term('undecodable');
    return;
  }
  // Tell the server a slow handler is still alive, so the message is not redelivered meanwhile.
  const keepAlive = setInterval(() => m.working(), ACK_WAIT_MS / 3);
  try {
    await runInTraceContext(msg.headers, () => handler(msg), msg.subject);
    m.ack();
  } catch (err) {
    const attempts = m.info.deliveryCount;
    log?.warn({ err, group, subject, attempts }, 'bus handler failed, will redeliver');
    m.nak(Math.min(500 * 2 ** (attempts - 1), MAX_NAK_DELAY_MS));
  } finally {
    clearInterval(keepAlive);
  }
}

async function handleBroadcast(m: Msg, handler: Handler<unknown>, subject: string, log: Logger | undefined) {
  const msg = decode(m, subject, false, log);
  if (!msg) return;
  try {
    await runInTraceContext(msg.headers, () => handler(msg), msg.subject);
  } catch (err) {
    log?.warn({ err, subject }, 'bus broadcast handler failed');
  }
}

function decode(m: Msg | JsMsg, subject: string, redelivered: boolean, log?: Logger): BusMessage | undefined {
  try {
    const data: unknown = m.data.length === 0 ? null : m.json();
    const headers = headerRecord(m.headers);
    return { subject, data, headers, redelivered, eventId: headers[EVENT_ID_HEADER] || undefined };
  } catch (err) {
    log?.error({ err, subject }, 'bus message is not JSON, dropped');
    return undefined;
  }
}

function headerRecord(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of h?.keys() ?? []) out[key] = h!.get(key);
  return out;
}

function encode(data: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(data ?? null));
}

async function watchStatus(nc: NatsConnection, link: { connected: boolean; reconnected: Set<() => void> }, log?: Logger): Promise<void> {
  for await (const s of nc.status()) {
    if (s.type === 'disconnect') link.connected = false;
    else if (s.type === 'reconnect') {
      link.connected = true;
      for (const listener of link.reconnected) listener();
    }
    if (s.type === 'disconnect' || s.type === 'error') log?.warn({ status: s.type, data: s.data }, 'nats connection');
    else if (s.type === 'reconnect') log?.info({ data: s.data }, 'nats reconnected');
  }
}
