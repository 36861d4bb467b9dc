-- Removing an authenticator ends the API sessions opened with it
-- (controller/db/authenticator_store.go DeleteById): find them by authenticator.
create index api_sessions_authenticator_id_idx on api_sessions (authenticator_id);
