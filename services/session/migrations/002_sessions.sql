-- Sessions (Dial/Bind) of API sessions. The API session, identity and service are owned by other
-- services: plain id columns, no foreign keys. One session per (API session, service, type), so
-- asking again returns the same one.
CREATE TABLE sessions (
  id                 text PRIMARY KEY,
  token              text NOT NULL UNIQUE,
  api_session_id     text NOT NULL,
  identity_id        text NOT NULL,
  service_id         text NOT NULL,
  service_name       text NOT NULL DEFAULT '',
  type               text NOT NULL CHECK (type IN ('Dial', 'Bind')),
  service_policy_ids text[] NOT NULL DEFAULT '{}',
  tags               jsonb NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at         timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (api_session_id, service_id, type)
);
CREATE INDEX sessions_identity_id ON sessions (identity_id);
CREATE INDEX sessions_service_id ON sessions (service_id);

-- Session requests refused by posture checks (GET /identities/{id}/failed-service-requests).
CREATE TABLE failed_service_requests (
  id              bigserial PRIMARY KEY,
  identity_id     text NOT NULL,
  api_session_id  text NOT NULL,
  service_id      text NOT NULL,
  service_name    text NOT NULL,
  session_type    text NOT NULL,
  policy_failures jsonb NOT NULL DEFAULT '[]',
  failed_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX failed_service_requests_identity_id ON failed_service_requests (identity_id, failed_at);
