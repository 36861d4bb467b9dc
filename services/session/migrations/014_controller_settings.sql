-- Controller settings: the `global` object every controller starts from, and per-controller
-- overrides whose id is the controller's id. On an override a NULL list inherits the global one;
-- an empty array overrides it with nothing. The global object is seeded with OpenZiti's default
-- OIDC redirect and post-logout URIs (controller/db/migration_v38.go, addGlobalControllerConfig).
CREATE TABLE controller_settings (
  id                    text PRIMARY KEY,
  oidc_redirect_uris    text[],
  oidc_post_logout_uris text[],
  tags                  jsonb NOT NULL DEFAULT '{}',
  created_at            timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at            timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

INSERT INTO controller_settings (id, oidc_redirect_uris, oidc_post_logout_uris) VALUES (
  'global',
  ARRAY[
    'openziti://auth/callback',
    'https://127.0.0.1:*/auth/callback',
    'http://127.0.0.1:*/auth/callback',
    'https://localhost:*/auth/callback',
    'http://localhost:*/auth/callback',
    'http://[::1]:*/auth/callback',
    'https://[::1]:*/auth/callback'
  ],
  ARRAY[
    'openziti://auth/logout',
    'https://127.0.0.1:*/auth/logout',
    'http://127.0.0.1:*/auth/logout',
    'https://localhost:*/auth/logout',
    'http://localhost:*/auth/logout',
    'http://[::1]:*/auth/logout',
    'https://[::1]:*/auth/logout'
  ]
);
