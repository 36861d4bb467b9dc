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
