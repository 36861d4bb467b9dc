-- The data integrity run: one at a time across every replica (a single row), with its results.
CREATE TABLE integrity_runs (
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  running    boolean NOT NULL DEFAULT false,
  fix        boolean NOT NULL DEFAULT false,
  started_at timestamptz,
  ended_at   timestamptz,
  error      text NOT NULL DEFAULT '',
  results    jsonb NOT NULL DEFAULT '[]'
);
INSERT INTO integrity_runs (id) VALUES (true);
