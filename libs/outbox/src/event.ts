/**
 * What an outbox row carries besides the payload: a unique event id, the request and trace
 * context of the write that caused it (so the relay's publish joins that trace), and the key that
 * orders it among the events of the same entity.
 */
import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { EVENT_ID_HEADER } from '@edge/bus';
import { currentContext } from '@edge/rpc';

/** Header with the id of the request that caused an event. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** Header with the identity whose request caused an event, when known. */
export const ACTOR_HEADER = 'x-edge-actor';

/** How an event is recorded. */
export interface EnqueueOptions {
  /** Extra headers, stored and published with the event. */
  headers?: Record<string, string>;
  /**
   * Events with the same key are published in the order they were recorded. Default: the
   * subject without its last token and `data.id` (`edge.identity.identity:<id>`), so the events of
   * one entity keep their order; none when `data` has no string `id`. `null`: no order.
   */
  key?: string | null;
}

/** The columns of a new outbox row. */
export interface NewEvent {
  event_id: string;
  subject: string;
  ordering_key: string | null;
  data: string;
  headers: string;
}

/** The ordering key of an event on `subject` about `data`, by default. */
export function defaultKey(subject: string, data: unknown): string | null {
  const id = typeof data === 'object' && data !== null ? (data as { id?: unknown }).id : undefined;
  if (typeof id !== 'string' || id === '') return null;
  return `${subject.slice(0, Math.max(0, subject.lastIndexOf('.')))}:${id}`;
}

/** Builds the row of a new event, capturing the active request and trace context. */
export function newEvent(subject: string, data: unknown, opts: EnqueueOptions = {}): NewEvent {
  const eventId = randomUUID();
  const request = currentContext();
  const headers: Record<string, string> = { ...opts.headers, [REQUEST_ID_HEADER]: request.requestId, [EVENT_ID_HEADER]: eventId };
  if (request.actorId) headers[ACTOR_HEADER] = request.actorId;
  propagation.inject(context.active(), headers);
  return {
    event_id: eventId,
    subject,
    ordering_key: opts.key === undefined ? defaultKey(subject, data) : opts.key,
    data: JSON.stringify(data ?? null),
    headers: JSON.stringify(headers),
  };
}
