-- MFA (TOTP) enrollments, one per identity. The secret and the viewable copy of the recovery
-- codes are sealed with AES-256-GCM under the key-encryption key (never stored in clear);
-- recovery codes are checked and consumed through their keyed hashes.
create table mfas (
  id                    text primary key,
  identity_id           text not null unique,
  is_verified           boolean not null default false,
  secret_sealed         text not null,
  recovery_codes_sealed text not null,
  -- the last TOTP time step accepted: a code of that step or earlier is a replay
  last_totp_step        bigint,
  tags                  jsonb not null default '{}',
  created_at            timestamptz not null default now(),
  updated_at            timestamptz not null default now()
);

create table mfa_recovery_codes (
  mfa_id    text not null references mfas (id) on delete cascade,
  code_hash text not null,
  primary key (mfa_id, code_hash)
);

-- Wrong MFA codes sent on an API session; past the limit the session ends.
alter table api_sessions add column mfa_failed_attempts integer not null default 0;

-- Proofs of a TOTP check at a given time (createTotpToken), for posture checks.
create table totp_tokens (
  token_hash     text primary key,
  api_session_id text not null references api_sessions (id) on delete cascade,
  issued_at      timestamptz not null default now()
);

-- The installation's scrypt salt when the key-encryption key is a passphrase (one row).
create table key_encryption (
  id          boolean primary key default true check (id),
  scrypt_salt bytea not null
);
