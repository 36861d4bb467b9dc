-- Edge routers and transit routers. They share one name space, as in OpenZiti, where both are
-- routers of the fabric; `kind` tells them apart.
CREATE TABLE routers (
  id                     text PRIMARY KEY,
  kind                   text NOT NULL CHECK (kind IN ('edge', 'transit')),
  name                   text NOT NULL,
  role_attributes        text[] NOT NULL DEFAULT '{}',
  tags                   jsonb NOT NULL DEFAULT '{}',
  app_data               jsonb NOT NULL DEFAULT '{}',
  cost                   integer NOT NULL DEFAULT 0 CHECK (cost BETWEEN 0 AND 65535),
  no_traversal           boolean NOT NULL DEFAULT false,
  disabled               boolean NOT NULL DEFAULT false,
  is_tunneler_enabled    boolean NOT NULL DEFAULT false,
  is_verified            boolean NOT NULL DEFAULT false,
  fingerprint            text,
  cert_pem               text,
  unverified_fingerprint text,
  unverified_cert_pem    text,
  hostname               text NOT NULL DEFAULT '',
  supported_protocols    jsonb NOT NULL DEFAULT '{}',
  ctrl_chan_listeners    jsonb NOT NULL DEFAULT '{}',
  created_at             timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at             timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

CREATE UNIQUE INDEX routers_name_key ON routers (name);
CREATE INDEX routers_kind_created_at ON routers (kind, created_at, id);
CREATE INDEX routers_role_attributes ON routers USING gin (role_attributes);
