-- Enrollments: one-time tokens an identity (ott, ottca, updb) or a router (erott, trott)
-- redeems for its first credential. Identities and routers live in the identity service's
-- schema: their ids are plain columns, never foreign keys (ARCHITECTURE.md rule 1).
create table enrollments (
  id                text primary key,
  method            text not null check (method in ('ott', 'ottca', 'updb', 'erott', 'trott')),
  identity_id       text,
  edge_router_id    text,
  transit_router_id text,
  ca_id             text,
  username          text,
  -- sha256 hex of the token: a leaked table redeems nothing
  token_hash        text not null unique,
  -- the signed JWT (which carries the token) under AES-256-GCM, for display to admins
  jwt_encrypted     text not null,
  issued_at         timestamptz not null,
  expires_at        timestamptz not null,
  tags              jsonb not null default '{}',
  created_at        timestamptz not null default date_trunc('milliseconds', now()),
  updated_at        timestamptz not null default date_trunc('milliseconds', now()),
  check (num_nonnulls(identity_id, edge_router_id, transit_router_id) = 1),
  check ((method in ('ott', 'ottca', 'updb')) = (identity_id is not null)),
  check ((method = 'erott') = (edge_router_id is not null)),
  check ((method = 'trott') = (transit_router_id is not null))
);

-- One outstanding enrollment per identity and method, one per router (enrollment_manager.go).
create unique index enrollments_identity_method_key on enrollments (identity_id, method) where identity_id is not null;
create unique index enrollments_edge_router_key on enrollments (edge_router_id) where edge_router_id is not null;
create unique index enrollments_transit_router_key on enrollments (transit_router_id) where transit_router_id is not null;
create index enrollments_created_at on enrollments (created_at, id);
