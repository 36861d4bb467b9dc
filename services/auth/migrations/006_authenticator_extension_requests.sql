-- An administrator may ask the holder of a certificate authenticator to extend its certificate
-- early (and to roll its key); clients see the request in their API session.
alter table authenticators add column is_extend_requested boolean not null default false;
alter table authenticators add column is_key_roll_requested boolean not null default false;
alter table authenticators add column extend_requested_at timestamptz;
