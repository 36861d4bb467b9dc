-- Third-party certificate authorities: trusted for certificate login and for ottca / ca
-- auto-enrollment once verified (proof of possession of the CA key).
create table cas (
  id                            text primary key,
  name                          text not null,
  fingerprint                   text not null,
  cert_pem                      text not null,
  is_verified                   boolean not null default false,
  verification_token            text not null,
  is_auth_enabled               boolean not null,
  is_auto_ca_enrollment_enabled boolean not null,
  is_ott_ca_enrollment_enabled  boolean not null,
  identity_roles                text[] not null default '{}',
  identity_name_format          text not null,
  -- externalIdClaim of the specs, or null
  external_id_claim             jsonb,
  tags                          jsonb not null default '{}',
  created_at                    timestamptz not null default date_trunc('milliseconds', now()),
  updated_at                    timestamptz not null default date_trunc('milliseconds', now()),
  constraint cas_name_key unique (name),
  constraint cas_fingerprint_key unique (fingerprint)
);

create index cas_created_at on cas (created_at, id);
create index enrollments_ca_id on enrollments (ca_id) where ca_id is not null;
