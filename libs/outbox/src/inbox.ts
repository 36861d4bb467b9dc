/**
 * The consuming side: delivery is at-least-once (a handler whose ack was lost runs again, on any
 * replica; an event the relay published twice arrives twice), so every consumer of a service
 * records the events it handled and skips one it has seen. The record is written after the
 * handler succeeded, so a crash in between runs the handler again: handlers stay idempotent, the
 * inbox only keeps repeats from doing the work twice.
 */
import { durableName, type Bus, type BusMessage, type Handler } from '@edge/bus';
import type { Kysely } from 'kysely';
import { precompiled } from '@edge/db';
import { sql } from 'kysely';
import type { OutboxDatabase } from './tables.js';

/** Options of {@link createInbox}. */
export interface InboxOptions {
  /**
   * How long a handled event is remembered: longer than the stream keeps messages (24 h), so a
   * repeat can never outlive its record. Default 48 h.
   */
  retainMs?: number;
}

/** What a service's consumers remember. */
export interface Inbox {
  /** The same bus, whose work subscriptions skip an event their consumer already handled. */
  guard(bus: Bus): Bus;
  /** Forgets events handled before the retention; how many rows went. */
  prune(): Promise<number>;
}

const PRUNE_EVERY_MS = 60 * 60_000;

/** Creates the inbox over a service's database (its schema holds the `inbox` table). */
export function createInbox(database: Kysely<any>, opts: InboxOptions = {}): Inbox {
  const db = database as Kysely<OutboxDatabase>;
  const retainMs = opts.retainMs ?? 48 * 60 * 60_000;
  let lastPrune = 0;

  // The statements of every event handled, compiled once and kept prepared (see @edge/db's precompiled).
  const seenStatement = precompiled(2, (consumer: string, eventId: string) => db.selectFrom('inbox').select('event_id')
    .where('consumer', '=', consumer).where('event_id', '=', eventId));
  const recordStatement = precompiled(2, (consumer: string, eventId: string) => db.insertInto('inbox')
    .values({ consumer, event_id: eventId }).onConflict((oc) => oc.doNothing()));

  const seen = async (consumer: string, eventId: string) => (await seenStatement(db, consumer, eventId)).length > 0;

  async function prune(): Promise<number> {
    lastPrune = Date.now();
    // Run hourly, so one statement deletes about an hour of events.
    const r = await db.deleteFrom('inbox').where('handled_at', '<', sql<Date>`now() - ${retainMs} * interval '1 millisecond'`).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async function record(consumer: string, eventId: string): Promise<void> {
    // Started before the record is written, so whoever sees the record sees the prune under way.
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) void prune().catch(() => undefined);
    await recordStatement(db, consumer, eventId);
  }

  /** Runs `handler` once per event id for `consumer`; events without an id always run. */
  const once = <T>(consumer: string, handler: Handler<T>): Handler<T> => async (msg: BusMessage<T>) => {
    const id = msg.eventId;
    if (id === undefined) return handler(msg);
    if (await seen(consumer, id)) return;
    await handler(msg);
    await record(consumer, id);
  };

  return {
    guard(bus) {
      return {
        publish: (subject, data, headers) => bus.publish(subject, data, headers),
        consume: (group, subject, handler, consumeOpts) => bus.consume(group, subject, once(durableName(group, subject), handler), consumeOpts),
        subscribe: (subject, handler) => bus.subscribe(subject, handler),
        onReconnect: (listener) => bus.onReconnect(listener),
        close: () => bus.close(),
      };
    },
    prune,
  };
}
