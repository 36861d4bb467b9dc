/**
 * The in-process bus (standalone mode): the semantics of the NATS bus inside one process.
 * Work groups get each message once with retries; broadcast reaches every subscriber;
 * deliveries always happen on a later tick, never inside `publish`.
 */
import type { Logger } from '@edge/logging';
import { EVENT_ID_HEADER, type Bus, type BusMessage, type ConsumeOptions, type Handler, type Subscription } from './bus.js';
import { createRecentIds } from './recent-ids.js';
import { subjectMatches } from './subject.js';
import { inPublishSpan, runInTraceContext } from './trace.js';

/** Options of `createMemoryBus`. */
export interface MemoryBusOptions {
  log?: Logger;
  /** Delay before the first redelivery after a handler error, doubled per attempt (max 5 s). Default 100 ms. */
  retryDelayMs?: number;
  /** Deliveries per message and group before it is logged and dropped. Default 10. */
  maxAttempts?: number;
  /** Messages retained for groups that start later (like the stream's history). Default 10,000. */
  retain?: number;
}

interface Stored { subject: string; json: string; headers: Record<string, string> }
interface Delivery { msg: Stored; attempts: number }
interface Member { handler: Handler<any>; limit: number; running: Set<Promise<void>> }
interface Group { name: string; pattern: string; queue: Delivery[]; members: Member[]; turn: number }
interface Listener { pattern: string; handler: Handler<any>; running: Set<Promise<void>>; recent: ReturnType<typeof createRecentIds> }

const MAX_RETRY_DELAY_MS = 5_000;

/** Creates an in-process bus. */
export function createMemoryBus(opts: MemoryBusOptions = {}): Bus {
  const retryDelayMs = opts.retryDelayMs ?? 100;
  const maxAttempts = opts.maxAttempts ?? 10;
  const retain = opts.retain ?? 10_000;
  const history: Stored[] = [];
  const groups = new Map<string, Group>();
  const listeners = new Set<Listener>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const toMessage = (msg: Stored, redelivered: boolean): BusMessage<any> => ({
    subject: msg.subject, data: JSON.parse(msg.json), headers: { ...msg.headers }, redelivered, eventId: msg.headers[EVENT_ID_HEADER] || undefined,
  });

  function pump(group: Group): void {
    while (!closed && group.queue.length > 0) {
      const member = nextIdle(group);
      if (!member) return;
      deliver(group, member, group.queue.shift()!);
    }
  }

  function nextIdle(group: Group): Member | undefined {
    for (let i = 0; i < group.members.length; i++) {
      const member = group.members[(group.turn + i) % group.members.length];
      if (member.running.size < member.limit) {
        group.turn = (group.turn + i + 1) % group.members.length;
        return member;
      }
    }
    return undefined;
  }

  function deliver(group: Group, member: Member, delivery: Delivery): void {
    const attempt = delivery.attempts + 1;
    // Added to the member's set before the first await below lets it finish.
    const running: Promise<void> = (async () => {
      await null; // the handler never runs inside this call stack, even if it throws synchronously
      try {
        const msg = toMessage(delivery.msg, attempt > 1);
        await runInTraceContext(msg.headers, () => member.handler(msg), msg.subject);
      } catch (err) {
        retry(group, { msg: delivery.msg, attempts: attempt }, err);
      } finally {
        member.running.delete(running!);
        pump(group);
      }
    })();
    member.running.add(running);
  }

  function retry(group: Group, delivery: Delivery, err: unknown): void {
    const where = { err, group: group.name, subject: delivery.msg.subject, attempts: delivery.attempts };
    if (delivery.attempts >= maxAttempts) {
      opts.log?.error(where, 'bus handler failed, giving up on message');
      return;
    }
    opts.log?.warn(where, 'bus handler failed, will redeliver');
    const delay = Math.min(retryDelayMs * 2 ** (delivery.attempts - 1), MAX_RETRY_DELAY_MS);
    const timer = setTimeout(() => {
      timers.delete(timer);
      group.queue.push(delivery);
      pump(group);
    }, delay);
    timers.add(timer);
  }

  function broadcast(listener: Listener, msg: Stored): void {
    const running = (async () => {
      const message = toMessage(msg, false);
      await runInTraceContext(message.headers, () => listener.handler(message), message.subject);
    })().catch((err: unknown) => {
      opts.log?.warn({ err, subject: msg.subject }, 'bus broadcast handler failed');
    }).finally(() => listener.running.delete(running));
    listener.running.add(running);
  }

  function joinGroup(name: string, pattern: string): Group {
    const key = `${name}\0${pattern}`;
    let group = groups.get(key);
    if (!group) {
      const backlog = history.filter((m) => subjectMatches(pattern, m.subject)).map((msg) => ({ msg, attempts: 0 }));
      group = { name, pattern, queue: backlog, members: [], turn: 0 };
      groups.set(key, group);
    }
    return group;
  }

  return {
    async publish(subject, data, headers) {
      if (closed) throw new Error('bus is closed');
      const traced = await inPublishSpan(subject, headers, async (h) => h);
      const msg: Stored = { subject, json: JSON.stringify(data ?? null), headers: traced };
      history.push(msg);
      if (history.length > retain) history.shift();
      // Queue now (a group created later takes it from history instead), deliver on a later tick.
      const targets = [...groups.values()].filter((g) => subjectMatches(g.pattern, subject));
      for (const group of targets) group.queue.push({ msg, attempts: 0 });
      const audience = [...listeners].filter((l) => subjectMatches(l.pattern, subject));
      setImmediate(() => {
        if (closed) return;
        for (const listener of audience) {
          if (listeners.has(listener) && listener.recent.firstSight(msg.headers[EVENT_ID_HEADER] || undefined)) broadcast(listener, msg);
        }
        for (const group of targets) pump(group);
      });
    },

    async consume<T>(group: string, subject: string, handler: Handler<T>, opts: ConsumeOptions = {}) {
      if (closed) throw new Error('bus is closed');
      const g = joinGroup(group, subject);
      const member: Member = { handler, limit: Math.max(1, opts.concurrency ?? 1), running: new Set() };
      g.members.push(member);
      setImmediate(() => pump(g));
      return {
        async unsubscribe() {
          g.members = g.members.filter((m) => m !== member);
          await Promise.all(member.running);
        },
      } satisfies Subscription;
    },

    async subscribe<T>(subject: string, handler: Handler<T>) {
      if (closed) throw new Error('bus is closed');
      const listener: Listener = { pattern: subject, handler, running: new Set(), recent: createRecentIds() };
      listeners.add(listener);
      return {
        async unsubscribe() {
          listeners.delete(listener);
          await Promise.all(listener.running);
        },
      } satisfies Subscription;
    },

    onReconnect() {
      // Nothing between publisher and subscriber can be lost.
    },

    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const running = [...groups.values()].flatMap((g) => g.members.flatMap((m) => [...m.running]));
      for (const listener of listeners) running.push(...listener.running);
      listeners.clear();
      groups.clear();
      await Promise.all(running);
    },
  };
}
