-- What this service knows of identities (owned by the identity service), kept from the
-- edge.identity.identity.* events and a periodic reconciliation, so that login and API session
-- validation never ask the identity service. `updated_at` is the identity's version: a row only
-- takes an event at least as new. A deleted identity stays as a row with `deleted` set, so a late
-- event of its life does not bring it back.
CREATE TABLE identities (
  id               text PRIMARY KEY,
  name             text NOT NULL,
  type_id          text NOT NULL,
  is_admin         boolean NOT NULL,
  is_default_admin boolean NOT NULL,
  disabled         boolean NOT NULL,
  disabled_until   timestamptz,
  auth_policy_id   text NOT NULL,
  external_id      text,
  permissions      text[] NOT NULL DEFAULT '{}',
  role_attributes  text[] NOT NULL DEFAULT '{}',
  deleted          boolean NOT NULL DEFAULT false,
  updated_at       timestamptz NOT NULL,
  -- when this service last heard of the row (an event or the reconciliation)
  seen_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX identities_external_id ON identities (external_id) WHERE external_id IS NOT NULL AND NOT deleted;
CREATE INDEX identities_auth_policy_id ON identities (auth_policy_id) WHERE NOT deleted;
