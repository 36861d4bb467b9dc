-- Events recorded in the transaction of their change, published by the relay after the commit
-- and deleted once the bus acknowledged them (libs/outbox). `ordering_key` keeps one entity's
-- events in order; `claimed_until` keeps other relays (replicas) off a claimed row.
CREATE TABLE outbox (
  id            bigserial PRIMARY KEY,
  event_id      text NOT NULL,
  subject       text NOT NULL,
  ordering_key  text,
  data          jsonb NOT NULL,
  headers       jsonb NOT NULL DEFAULT '{}',
  attempts      integer NOT NULL DEFAULT 0,
  claimed_until timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_ordering_key ON outbox (ordering_key, id);

-- Events this service's consumers handled, so a repeat is skipped.
CREATE TABLE inbox (
  consumer   text NOT NULL,
  event_id   text NOT NULL,
  handled_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
CREATE INDEX inbox_handled_at ON inbox (handled_at);

-- Periodic reconciliations: which replica runs the next, and where the last one stopped.
CREATE TABLE reconciliations (
  name          text PRIMARY KEY,
  claimed_until timestamptz NOT NULL,
  cursor        text
);
