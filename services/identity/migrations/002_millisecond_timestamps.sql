-- Timestamps keep the millisecond precision the API renders, so a filter such as
-- createdAt = datetime(<a createdAt read from the API>) finds the entity it was copied from.
ALTER TABLE identities ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now());
ALTER TABLE identities ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', now());
ALTER TABLE identity_types ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now());
ALTER TABLE identity_types ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', now());
UPDATE identities SET created_at = date_trunc('milliseconds', created_at), updated_at = date_trunc('milliseconds', updated_at);
UPDATE identity_types SET created_at = date_trunc('milliseconds', created_at), updated_at = date_trunc('milliseconds', updated_at);
