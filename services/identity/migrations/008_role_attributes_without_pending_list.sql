-- Role attribute filters (`anyOf(roleAttributes) = "x"`, `#x` roles) are answered from the GIN
-- index on role_attributes. With GIN's fast update, rows written in bulk (an import, a busy
-- hour) wait in the index's pending list until the next vacuum, and until then every lookup
-- reads that list whole: at 16,000 identities the planner picks a sequential scan instead.
-- Identities are written rarely and read on every filter, so new rows go straight into the index.
ALTER INDEX identities_role_attributes SET (fastupdate = off);
SELECT gin_clean_pending_list('identities_role_attributes'::regclass);
