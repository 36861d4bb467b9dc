-- Config types: named JSON schemas that configs of services are validated against.
CREATE TABLE config_types (
  id         text PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  schema     jsonb NOT NULL DEFAULT '{}',
  tags       jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX config_types_created_at ON config_types (created_at, id);
