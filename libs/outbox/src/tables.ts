/**
 * The tables this library works on, in the schema of the service using it. Each service creates
 * them with a migration of its own (same shape everywhere):
 *
 * ```sql
 * CREATE TABLE outbox (
 *   id bigserial PRIMARY KEY, event_id text NOT NULL, subject text NOT NULL, ordering_key text,
 *   data jsonb NOT NULL, headers jsonb NOT NULL DEFAULT '{}', attempts integer NOT NULL DEFAULT 0,
 *   claimed_until timestamptz, created_at timestamptz NOT NULL DEFAULT now());
 * CREATE INDEX outbox_ordering_key ON outbox (ordering_key, id);
 * CREATE TABLE inbox (consumer text NOT NULL, event_id text NOT NULL,
 *   handled_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (consumer, event_id));
 * CREATE INDEX inbox_handled_at ON inbox (handled_at);
 * CREATE TABLE reconciliations (name text PRIMARY KEY, claimed_until timestamptz NOT NULL, cursor text);
 * ```
 *
 * A service that publishes nothing needs no `outbox`; one that consumes nothing needs no `inbox`.
 */
import type { ColumnType, Generated } from 'kysely';

type Json = ColumnType<unknown, string, string>;

/** An event recorded with the change that caused it, until the relay saw it acknowledged. */
export interface OutboxTable {
  /** Gives the order events are published in (per ordering key). */
  id: Generated<string | number>;
  /** Unique per event; the bus header consumers dedupe by. */
  event_id: string;
  subject: string;
  /** Events with the same key are published in `id` order, never two at once. */
  ordering_key: string | null;
  data: Json;
  headers: Json;
  attempts: Generated<number>;
  /** Claimed by a relay (or backing off after a failed publish) until then. */
  claimed_until: ColumnType<Date | null, never, Date | string | null>;
  created_at: Generated<Date>;
}

/** An event a consumer of this service has handled. */
export interface InboxTable {
  /** The durable consumer: its group and subject. */
  consumer: string;
  event_id: string;
  handled_at: Generated<Date>;
}

/** A periodic reconciliation: who may run it next, and where its last run stopped. */
export interface ReconciliationsTable {
  name: string;
  claimed_until: ColumnType<Date, Date | string, Date | string>;
  cursor: string | null;
}

/** The tables as Kysely sees them. */
export interface OutboxDatabase {
  outbox: OutboxTable;
  inbox: InboxTable;
  reconciliations: ReconciliationsTable;
}
