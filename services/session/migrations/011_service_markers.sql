-- The service-update marker: per identity, a digest of the service list (with permissions and
-- configs) it last saw, and when that digest last changed.
CREATE TABLE service_markers (
  identity_id text PRIMARY KEY,
  digest      text NOT NULL,
  changed_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
