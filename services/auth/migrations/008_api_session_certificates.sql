-- Short-lived client certificates an API session asked for with a CSR; they go with the session.
create table api_session_certificates (
  id             text primary key,
  api_session_id text not null references api_sessions (id) on delete cascade,
  subject        text not null,
  fingerprint    text not null,
  valid_from     timestamptz not null,
  valid_to       timestamptz not null,
  cert_pem       text not null,
  created_at     timestamptz not null default date_trunc('milliseconds', now()),
  updated_at     timestamptz not null default date_trunc('milliseconds', now())
);

create index api_session_certificates_session_idx on api_session_certificates (api_session_id, created_at, id);
