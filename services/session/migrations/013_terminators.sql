-- Terminators: where a service is hosted (a router, and the binding and address on it). The
-- service and router are owned by other services: plain id columns, no foreign keys; they are
-- deleted with their service or router by events, and swept by the integrity check.
CREATE TABLE terminators (
  id               text PRIMARY KEY,
  service_id       text NOT NULL,
  router_id        text NOT NULL,
  binding          text NOT NULL,
  address          text NOT NULL,
  identity         text NOT NULL DEFAULT '',
  identity_secret  text,
  cost             integer NOT NULL DEFAULT 0 CHECK (cost BETWEEN 0 AND 65535),
  precedence       text NOT NULL DEFAULT 'default' CHECK (precedence IN ('default', 'required', 'failed')),
  saved_precedence text CHECK (saved_precedence IN ('default', 'required', 'failed')),
  host_id          text NOT NULL DEFAULT '',
  tags             jsonb NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX terminators_service_id ON terminators (service_id);
CREATE INDEX terminators_router_id ON terminators (router_id);
