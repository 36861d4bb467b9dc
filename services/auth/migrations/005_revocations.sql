-- Revocations: a JWT id, an identity's tokens or an API session declared invalid until expires_at
-- (after which nothing it revoked could still be valid).
create table revocations (
  id         text primary key,
  type       text not null check (type in ('JTI', 'IDENTITY', 'API_SESSION')),
  tags       jsonb not null default '{}',
  expires_at timestamptz not null,
  created_at timestamptz not null default date_trunc('milliseconds', now()),
  updated_at timestamptz not null default date_trunc('milliseconds', now())
);
