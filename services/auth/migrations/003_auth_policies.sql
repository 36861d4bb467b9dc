-- Auth policies: which primary methods an identity may use, password rules and lockout, and
-- what a login must add. Identities name theirs by id (identity service); `default` always
-- exists, with OpenZiti's defaults (controller/db/auth_policy_store.go).
create table auth_policies (
  id                                    text primary key,
  name                                  text not null unique,
  primary_cert_allowed                  boolean not null,
  primary_cert_allow_expired_certs      boolean not null,
  primary_ext_jwt_allowed               boolean not null,
  primary_ext_jwt_allowed_signers       text[] not null default '{}',
  primary_updb_allowed                  boolean not null,
  primary_updb_min_password_length      integer not null,
  primary_updb_require_mixed_case       boolean not null,
  primary_updb_require_number_char      boolean not null,
  primary_updb_require_special_char     boolean not null,
  -- 0: unlimited
  primary_updb_max_attempts             integer not null,
  -- 0: until enabled again
  primary_updb_lockout_duration_minutes integer not null,
  secondary_require_totp                boolean not null,
  secondary_require_ext_jwt_signer      text,
  tags                                  jsonb not null default '{}',
  created_at                            timestamptz not null default now(),
  updated_at                            timestamptz not null default now()
);

insert into auth_policies (
  id, name, primary_cert_allowed, primary_cert_allow_expired_certs, primary_ext_jwt_allowed,
  primary_updb_allowed, primary_updb_min_password_length, primary_updb_require_mixed_case,
  primary_updb_require_number_char, primary_updb_require_special_char, primary_updb_max_attempts,
  primary_updb_lockout_duration_minutes, secondary_require_totp
) values ('default', 'Default', true, true, true, true, 5, false, false, false, 0, 0, false);

-- Consecutive wrong passwords, counted here so every replica sees the same number.
alter table authenticators add column failed_attempts integer not null default 0;
