-- A counter that every change to what a service access depends on moves forward, in the
-- transaction of the change, whichever statement made it: services, the three kinds of policy,
-- posture checks and the read model of edge routers. The parts of access answers this service
-- keeps in memory (src/access-parts.ts) are kept under the counter they were read at and used
-- only while it has not moved, so a kept answer is never older than the tables. A statement
-- that changes no row (a reconciliation finding nothing new) leaves it alone.
CREATE TABLE access_version (
  version bigint NOT NULL
);
INSERT INTO access_version (version) VALUES (0);

CREATE FUNCTION access_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE access_version SET version = version + 1;
  ELSIF EXISTS (SELECT 1 FROM changed) THEN
    UPDATE access_version SET version = version + 1;
  END IF;
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['services', 'service_policies', 'edge_router_policies', 'service_edge_router_policies', 'posture_checks', 'edge_routers'] LOOP
    EXECUTE format('CREATE TRIGGER %1$s_access_inserted AFTER INSERT ON %1$I REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION access_changed()', t);
    EXECUTE format('CREATE TRIGGER %1$s_access_updated AFTER UPDATE ON %1$I REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION access_changed()', t);
    EXECUTE format('CREATE TRIGGER %1$s_access_deleted AFTER DELETE ON %1$I REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION access_changed()', t);
    EXECUTE format('CREATE TRIGGER %1$s_access_truncated AFTER TRUNCATE ON %1$I FOR EACH STATEMENT EXECUTE FUNCTION access_changed()', t);
  END LOOP;
END $$;

-- The service policies selecting a service are found from the service's side (a service's part of
-- an access), through an index for each branch: `#all` here, the ids and attributes by GIN (002).
CREATE INDEX service_policies_service_all ON service_policies (id) WHERE service_all;
