/** The bus contract shared by the NATS and in-process implementations. */

/** One delivered message. */
export interface BusMessage<T = unknown> {
  /** The subject as published, without the wire prefix. */
  subject: string;
  /** The published value, decoded from JSON. */
  data: T;
  /** Publisher headers, trace context included. */
  headers: Record<string, string>;
  /** True when this message was delivered before (to this group); handlers must be idempotent. */
  redelivered: boolean;
  /**
   * The event's unique id (header {@link EVENT_ID_HEADER}), given once when the event was
   * recorded; the same event published again carries the same id, so consumers dedupe by it.
   */
  eventId?: string;
}

/**
 * Header carrying an event's unique id. NATS publishes it as the JetStream message id too, so
 * the stream stores an event published twice (a retry after a lost ack) once.
 */
export const EVENT_ID_HEADER = 'edge-event-id';

/** Options of a work subscription. */
export interface ConsumeOptions {
  /**
   * Messages handled at once by this subscriber (default 1: one after another, in stream
   * order). Above 1, order is no longer kept; for handlers that coalesce their work.
   */
  concurrency?: number;
}

/** Handles one message; a rejection means "not handled" (work subscriptions redeliver). */
export type Handler<T = unknown> = (msg: BusMessage<T>) => Promise<void>;

/** Change notifications between services. */
export interface Bus {
  /**
   * Publishes after the caller's write committed; resolves when the message is durably stored
   * (JetStream ack) or, in-process, queued. Subjects must start with `edge.` to be stored.
   * Rejects at once while the connection to NATS is down.
   */
  publish(subject: string, data: unknown, headers?: Record<string, string>): Promise<void>;
  /**
   * Work subscription: every message once per `group` (one replica of that group handles it),
   * at-least-once, redelivered after a handler error or a crash (acked after the handler
   * resolves), surviving restarts of the consumer. A group seen for the first time also gets
   * the retained messages published before it started. Subjects may use NATS wildcards.
   */
  consume<T>(group: string, subject: string, handler: Handler<T>, opts?: ConsumeOptions): Promise<Subscription>;
  /**
   * Broadcast subscription: every live subscriber (every replica) gets every message, without
   * persistence; used for cache invalidation. A message whose event id this subscriber saw
   * recently is dropped (an event published again after a lost ack).
   */
  subscribe<T>(subject: string, handler: Handler<T>): Promise<Subscription>;
  /**
   * Calls `listener` each time the connection to the bus came back after it was lost: broadcasts
   * published meanwhile were not delivered, so caches kept by broadcast invalidation must start
   * over. The in-process bus never loses its connection.
   */
  onReconnect(listener: () => void): void;
  /** Stops every subscription (waiting for running handlers) and disconnects. */
  close(): Promise<void>;
}

/** A running subscription. */
export interface Subscription {
  /** Stops deliveries and waits for a running handler to finish; durable state is kept. */
  unsubscribe(): Promise<void>;
}
