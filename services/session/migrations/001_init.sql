-- Controller instances: every gateway replica registers here with its API address.
CREATE TABLE controllers (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  api_address    text NOT NULL,
  cert_pem       text NOT NULL DEFAULT '',
  is_online      boolean NOT NULL DEFAULT true,
  last_joined_at timestamptz NOT NULL DEFAULT now(),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
