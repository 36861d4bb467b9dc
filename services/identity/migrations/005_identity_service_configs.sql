-- An identity's own config for a service, replacing the service's config of the same type when
-- that identity lists its services (OpenZiti's identity service configs). Services and configs
-- belong to the policy service: plain id columns.
CREATE TABLE identity_service_configs (
  identity_id    text NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
  service_id     text NOT NULL,
  config_type_id text NOT NULL,
  config_id      text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  PRIMARY KEY (identity_id, service_id, config_type_id)
);
