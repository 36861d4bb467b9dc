-- The reconciliation reads every session in (identity, id) order, so that each page of 500 holds
-- the sessions of a few identities and their grants are read once a pass, not once a page. The
-- index on (identity_id, id) also serves every look-up by identity the single-column one served.
CREATE INDEX sessions_identity_id_id ON sessions (identity_id, id);
DROP INDEX sessions_identity_id;
