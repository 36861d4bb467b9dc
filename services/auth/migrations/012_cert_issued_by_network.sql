-- A certificate the controller's own CA issued can be extended by its holder; an API session
-- opened with one says so (controller/internal/routes/authenticate_router.go). Null: not yet
-- determined (rows from before this column; the service fills them in at start).
alter table authenticators add column is_issued_by_network boolean;
alter table api_sessions add column is_cert_extendable boolean not null default false;
