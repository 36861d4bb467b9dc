-- The configs of an edge or transit router (configs of router-targeted config types, owned by the
-- policy service, which checks them before a write): plain ids, removed when a config is deleted.
ALTER TABLE routers ADD COLUMN configs text[] NOT NULL DEFAULT '{}';
CREATE INDEX routers_configs ON routers USING gin (configs);
