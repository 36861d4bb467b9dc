-- The read model of edge routers, kept from the identity service's router events and a periodic
-- reconciliation: the edge routers policies select are matched here, not asked of the identity
-- service. `updated_at` is a row's version; a deleted router stays as a row marked deleted.
CREATE TABLE edge_routers (
  id                  text PRIMARY KEY,
  name                text NOT NULL,
  role_attributes     text[] NOT NULL DEFAULT '{}',
  hostname            text NOT NULL DEFAULT '',
  cost                integer NOT NULL DEFAULT 0,
  no_traversal        boolean NOT NULL DEFAULT false,
  disabled            boolean NOT NULL DEFAULT false,
  is_tunneler_enabled boolean NOT NULL DEFAULT false,
  supported_protocols jsonb NOT NULL DEFAULT '{}',
  app_data            jsonb NOT NULL DEFAULT '{}',
  deleted             boolean NOT NULL DEFAULT false,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  -- when this service last heard of the row (an event or the reconciliation)
  seen_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX edge_routers_role_attributes ON edge_routers USING gin (role_attributes) WHERE NOT deleted;
CREATE INDEX edge_routers_name ON edge_routers (name) WHERE NOT deleted;
CREATE INDEX edge_routers_order ON edge_routers (created_at, id) WHERE NOT deleted;

-- When a reconciliation last completed a pass over the identity service's list: until one has,
-- the model may lack routers, and their matching is asked of the identity service.
CREATE TABLE edge_router_model_fill (
  name         text PRIMARY KEY,
  completed_at timestamptz NOT NULL
);
