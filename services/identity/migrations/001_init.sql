-- Identities and identity types. Types use their names as ids, as OpenZiti does
-- (controller/db/identity_type_store.go: "Default", "Router").
CREATE TABLE identity_types (
  id         text PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  tags       jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO identity_types (id, name) VALUES ('Default', 'Default'), ('Router', 'Router');

CREATE TABLE identities (
  id                          text PRIMARY KEY,
  name                        text NOT NULL,
  type_id                     text NOT NULL REFERENCES identity_types (id),
  is_admin                    boolean NOT NULL DEFAULT false,
  is_default_admin            boolean NOT NULL DEFAULT false,
  role_attributes             text[] NOT NULL DEFAULT '{}',
  tags                        jsonb NOT NULL DEFAULT '{}',
  app_data                    jsonb NOT NULL DEFAULT '{}',
  default_hosting_cost        integer NOT NULL DEFAULT 0 CHECK (default_hosting_cost BETWEEN 0 AND 65535),
  default_hosting_precedence  text NOT NULL DEFAULT 'default',
  service_hosting_costs       jsonb NOT NULL DEFAULT '{}',
  service_hosting_precedences jsonb NOT NULL DEFAULT '{}',
  external_id                 text,
  auth_policy_id              text NOT NULL DEFAULT 'default',
  permissions                 text[] NOT NULL DEFAULT '{}',
  disabled                    boolean NOT NULL DEFAULT false,
  disabled_at                 timestamptz,
  disabled_until              timestamptz,
  env_info                    jsonb NOT NULL DEFAULT '{}',
  sdk_info                    jsonb NOT NULL DEFAULT '{}',
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX identities_name_key ON identities (name);
CREATE UNIQUE INDEX identities_external_id_key ON identities (external_id) WHERE external_id IS NOT NULL;
-- At most one default admin, so replicas bootstrapping at once cannot create two.
CREATE UNIQUE INDEX identities_one_default_admin ON identities (is_default_admin) WHERE is_default_admin;
CREATE INDEX identities_role_attributes ON identities USING gin (role_attributes);
CREATE INDEX identities_created_at ON identities (created_at, id);
