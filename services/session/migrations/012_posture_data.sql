-- What an API session has reported about its endpoint (posture responses), merged per type.
CREATE TABLE posture_data (
  api_session_id text PRIMARY KEY,
  identity_id    text NOT NULL,
  data           jsonb NOT NULL DEFAULT '{}',
  updated_at     timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX posture_data_identity ON posture_data (identity_id);
