-- The reconciliation of the edge router read model compares ids by code point (collate "C"), as
-- the identity service pages them, whatever the database's collation; this index serves it.
CREATE INDEX edge_routers_id_code_point ON edge_routers ((id COLLATE "C"));
