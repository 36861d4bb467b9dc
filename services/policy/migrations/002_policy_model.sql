-- Configs, services, policies and posture checks. Role lists are stored as given (roles)
-- and split (attrs / ids / all) so evaluation joins on text[] with GIN indexes instead of
-- parsing roles per row. Timestamps keep the millisecond precision the API renders.
ALTER TABLE config_types ADD COLUMN target text NOT NULL DEFAULT 'service';
ALTER TABLE config_types ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now());
ALTER TABLE config_types ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', now());

CREATE TABLE configs (
  id             text PRIMARY KEY,
  name           text NOT NULL UNIQUE,
  -- RESTRICT: a config type with configs cannot be deleted (409 CAN_NOT_DELETE_REFERENCED_ENTITY).
  config_type_id text NOT NULL REFERENCES config_types (id) ON DELETE RESTRICT,
  data           jsonb NOT NULL DEFAULT '{}',
  tags           jsonb NOT NULL DEFAULT '{}',
  created_at     timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at     timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX configs_created_at ON configs (created_at, id);
CREATE INDEX configs_config_type_id ON configs (config_type_id);

CREATE TABLE services (
  id                   text PRIMARY KEY,
  name                 text NOT NULL UNIQUE,
  encryption_required  boolean NOT NULL DEFAULT true,
  max_idle_time_millis bigint NOT NULL DEFAULT 0,
  terminator_strategy  text NOT NULL DEFAULT 'smartrouting',
  role_attributes      text[] NOT NULL DEFAULT '{}',
  tags                 jsonb NOT NULL DEFAULT '{}',
  created_at           timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at           timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX services_created_at ON services (created_at, id);
CREATE INDEX services_role_attributes ON services USING gin (role_attributes);

-- At most one config per config type on a service (as OpenZiti's service store enforces).
CREATE TABLE service_configs (
  service_id     text NOT NULL REFERENCES services (id) ON DELETE CASCADE,
  config_id      text NOT NULL REFERENCES configs (id) ON DELETE CASCADE,
  config_type_id text NOT NULL,
  PRIMARY KEY (service_id, config_id),
  UNIQUE (service_id, config_type_id)
);
CREATE INDEX service_configs_config_id ON service_configs (config_id);

CREATE TABLE posture_check_types (
  id                text PRIMARY KEY,
  name              text NOT NULL,
  operating_systems jsonb NOT NULL DEFAULT '[]',
  tags              jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at        timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

-- The types and operating systems OpenZiti reports (controller/db/migration_initialize.go
-- addPostureCheckTypes, addProcessMultiPostureCheck).
INSERT INTO posture_check_types (id, name, operating_systems) VALUES
 ('OS', 'Operating System Check', '[{"type":"Windows","versions":["Vista","7","8","10","2000"]},{"type":"Linux","versions":["4.14","4.19","5.4","5.9"]},{"type":"Android","versions":["9","10","11"]},{"type":"macOS","versions":["10.15","11.0"]},{"type":"iOS","versions":["11","12"]}]'),
 ('PROCESS', 'Process Check', '[{"type":"Windows","versions":["Vista","7","8","10","2000"]},{"type":"macOS","versions":["10.15","11.0"]},{"type":"Linux","versions":["4.14","4.19","5.4","5.9"]}]'),
 ('DOMAIN', 'Windows Domain Check', '[{"type":"Windows","versions":["Vista","7","8","10","2000"]}]'),
 ('MAC', 'MAC Address Check', '[{"type":"Windows","versions":["Vista","7","8","10","2000"]},{"type":"Linux","versions":["4.14","4.19","5.4","5.9"]},{"type":"macOS","versions":["10.15","11.0"]},{"type":"Android","versions":["9","10","11"]}]'),
 ('PROCESS_MULTI', 'Process Multi Check', '[{"type":"Windows","versions":[]},{"type":"macOS","versions":[]},{"type":"Linux","versions":[]}]'),
 ('MFA', 'MFA Check', '[{"type":"Windows","versions":[]},{"type":"WindowsServer","versions":[]},{"type":"Android","versions":[]},{"type":"iOS","versions":[]},{"type":"Linux","versions":[]},{"type":"macOS","versions":[]}]');

CREATE TABLE posture_checks (
  id              text PRIMARY KEY,
  name            text NOT NULL UNIQUE,
  type_id         text NOT NULL REFERENCES posture_check_types (id),
  role_attributes text[] NOT NULL DEFAULT '{}',
  version         integer NOT NULL DEFAULT 1,
  -- The fields of the check's type (operatingSystems, process, processes + semantic, domains,
  -- macAddresses, MFA timeouts) by their API names.
  data            jsonb NOT NULL DEFAULT '{}',
  tags            jsonb NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at      timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX posture_checks_created_at ON posture_checks (created_at, id);
CREATE INDEX posture_checks_role_attributes ON posture_checks USING gin (role_attributes);

CREATE TABLE service_policies (
  id                  text PRIMARY KEY,
  name                text NOT NULL UNIQUE,
  type                text NOT NULL CHECK (type IN ('Dial', 'Bind')),
  semantic            text NOT NULL CHECK (semantic IN ('AllOf', 'AnyOf')),
  identity_roles      text[] NOT NULL DEFAULT '{}',
  service_roles       text[] NOT NULL DEFAULT '{}',
  posture_check_roles text[] NOT NULL DEFAULT '{}',
  identity_all        boolean NOT NULL DEFAULT false,
  identity_attrs      text[] NOT NULL DEFAULT '{}',
  identity_ids        text[] NOT NULL DEFAULT '{}',
  service_all         boolean NOT NULL DEFAULT false,
  service_attrs       text[] NOT NULL DEFAULT '{}',
  service_ids         text[] NOT NULL DEFAULT '{}',
  posture_check_all   boolean NOT NULL DEFAULT false,
  posture_check_attrs text[] NOT NULL DEFAULT '{}',
  posture_check_ids   text[] NOT NULL DEFAULT '{}',
  tags                jsonb NOT NULL DEFAULT '{}',
  created_at          timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at          timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX service_policies_created_at ON service_policies (created_at, id);
CREATE INDEX service_policies_identity_attrs ON service_policies USING gin (identity_attrs);
CREATE INDEX service_policies_identity_ids ON service_policies USING gin (identity_ids);
CREATE INDEX service_policies_service_attrs ON service_policies USING gin (service_attrs);
CREATE INDEX service_policies_service_ids ON service_policies USING gin (service_ids);
CREATE INDEX service_policies_posture_check_ids ON service_policies USING gin (posture_check_ids);

CREATE TABLE edge_router_policies (
  id                text PRIMARY KEY,
  name              text NOT NULL UNIQUE,
  semantic          text NOT NULL CHECK (semantic IN ('AllOf', 'AnyOf')),
  identity_roles    text[] NOT NULL DEFAULT '{}',
  edge_router_roles text[] NOT NULL DEFAULT '{}',
  is_system         boolean NOT NULL DEFAULT false,
  identity_all      boolean NOT NULL DEFAULT false,
  identity_attrs    text[] NOT NULL DEFAULT '{}',
  identity_ids      text[] NOT NULL DEFAULT '{}',
  edge_router_all   boolean NOT NULL DEFAULT false,
  edge_router_attrs text[] NOT NULL DEFAULT '{}',
  edge_router_ids   text[] NOT NULL DEFAULT '{}',
  tags              jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at        timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX edge_router_policies_created_at ON edge_router_policies (created_at, id);
CREATE INDEX edge_router_policies_identity_attrs ON edge_router_policies USING gin (identity_attrs);

CREATE TABLE service_edge_router_policies (
  id                text PRIMARY KEY,
  name              text NOT NULL UNIQUE,
  semantic          text NOT NULL CHECK (semantic IN ('AllOf', 'AnyOf')),
  service_roles     text[] NOT NULL DEFAULT '{}',
  edge_router_roles text[] NOT NULL DEFAULT '{}',
  service_all       boolean NOT NULL DEFAULT false,
  service_attrs     text[] NOT NULL DEFAULT '{}',
  service_ids       text[] NOT NULL DEFAULT '{}',
  edge_router_all   boolean NOT NULL DEFAULT false,
  edge_router_attrs text[] NOT NULL DEFAULT '{}',
  edge_router_ids   text[] NOT NULL DEFAULT '{}',
  tags              jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at        timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX service_edge_router_policies_created_at ON service_edge_router_policies (created_at, id);
CREATE INDEX service_edge_router_policies_service_attrs ON service_edge_router_policies USING gin (service_attrs);

-- A service's config ids, kept with service_configs on every write, so reads and filters on
-- `configs` need no join.
ALTER TABLE services ADD COLUMN config_ids text[] NOT NULL DEFAULT '{}';
