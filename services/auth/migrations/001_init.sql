-- Authenticators and API sessions of the auth service. Identities live in the identity
-- service's schema: identity_id is a plain id column, never a foreign key (ARCHITECTURE.md rule 1).

create table authenticators (
  id            text primary key,
  identity_id   text not null,
  method        text not null check (method in ('updb', 'cert')),
  username      text,
  -- self-describing, e.g. scrypt$16384$8$1$<salt b64>$<hash b64>, so parameters can change later
  password_hash text,
  fingerprint   text,
  cert_pem      text,
  tags          jsonb not null default '{}',
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  check (method <> 'updb' or (username is not null and password_hash is not null)),
  check (method <> 'cert' or (fingerprint is not null and cert_pem is not null))
);

create unique index authenticators_username_key on authenticators (username) where method = 'updb';
create unique index authenticators_fingerprint_key on authenticators (fingerprint) where method = 'cert';
create index authenticators_identity_id_idx on authenticators (identity_id);

create table api_sessions (
  id               text primary key,
  -- sha256 hex of the token: a leaked table does not hand out live sessions
  token_hash       text not null unique,
  identity_id      text not null,
  -- no foreign key: deleting an authenticator must not silently end sessions without an event
  authenticator_id text not null,
  config_types     text[] not null default '{}',
  ip_address       text not null default '',
  is_mfa_required  boolean not null default false,
  is_mfa_complete  boolean not null default false,
  last_activity_at timestamptz not null default now(),
  tags             jsonb not null default '{}',
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);

create index api_sessions_identity_id_idx on api_sessions (identity_id);
