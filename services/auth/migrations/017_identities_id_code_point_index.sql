-- The reconciliation of the identity read model compares ids by code point (collate "C"), as
-- the identity service pages them, whatever the database's collation; this index serves it.
CREATE INDEX identities_id_code_point ON identities ((id COLLATE "C"));
