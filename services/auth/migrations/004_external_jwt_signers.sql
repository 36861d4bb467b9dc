-- External JWT signers: issuers whose JWTs prove an identity (method=ext-jwt), verified by a
-- certificate or by the keys of a JWKS endpoint.
create table external_jwt_signers (
  id                               text primary key,
  name                             text not null,
  cert_pem                         text,
  jwks_endpoint                    text,
  kid                              text,
  issuer                           text not null,
  audience                         text not null,
  claims_property                  text not null default 'sub',
  use_external_id                  boolean not null default false,
  external_auth_url                text,
  client_id                        text,
  scopes                           text[] not null default '{}',
  target_token                     text not null default 'ACCESS' check (target_token in ('ACCESS', 'ID')),
  enabled                          boolean not null default true,
  enroll_to_cert_enabled           boolean not null default false,
  enroll_to_token_enabled          boolean not null default false,
  enroll_auth_policy_id            text not null default '',
  enroll_name_claims_selector      text not null default '',
  enroll_attribute_claims_selector text not null default '',
  fingerprint                      text,
  common_name                      text,
  not_before                       timestamptz,
  not_after                        timestamptz,
  tags                             jsonb not null default '{}',
  created_at                       timestamptz not null default date_trunc('milliseconds', now()),
  updated_at                       timestamptz not null default date_trunc('milliseconds', now()),
  check ((cert_pem is null) <> (jwks_endpoint is null))
);

create unique index external_jwt_signers_name_key on external_jwt_signers (name);
create unique index external_jwt_signers_issuer_key on external_jwt_signers (issuer);
