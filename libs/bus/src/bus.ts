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
}

/** Handles one message; a rejection means "not handled" (work subscriptions redeliver). */
export type Handler<T = unknown> = (msg: BusMessage<T>) => Promise<void>;

/** Change notifications between services. */
export interface Bus {
  /**
   * Publishes after the caller's write committed; resolves when the message is durably stored
   * (JetStream ack) or, in-process, queued. Subjects must start with `edge.` to be stored.
   */
  publish(subject: string, data: unknown, headers?: Record<string, string>): Promise<void>;
  /**
   * Work subscription: every message once per `group` (one replica of that group handles it),
   * at-least-once, redelivered after a handler error or a crash (acked after the handler
   * resolves), surviving restarts of the consumer. A group seen for the first time also gets
   * the retained messages published before it started. Subjects may use NATS wildcards.
   */
  consume<T>(group: string, subject: string, handler: Handler<T>): Promise<Subscription>;
  /**
   * Broadcast subscription: every live subscriber (every replica) gets every message, without
   * persistence; used for cache invalidation.
   */
  subscribe<T>(subject: string, handler: Handler<T>): Promise<Subscription>;
  /** Stops every subscription (waiting for running handlers) and disconnects. */
  close(): Promise<void>;
}

/** A running subscription. */
export interface Subscription {
  /** Stops deliveries and waits for a running handler to finish; durable state is kept. */
  unsubscribe(): Promise<void>;
}
