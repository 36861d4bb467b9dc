-- A counter that every change to what a client's service list shows, beyond what access_version
-- (008) already counts, moves forward in the transaction of the change: configs, config types
-- and the configs assigned to services. An evaluated list or its digest kept under the pair of
-- counters it was read at is still the tables' answer while neither has moved
-- (src/evaluation-cache.ts), so a kept answer is confirmed by one small read instead of being
-- evaluated again. A statement that changes no row leaves it alone.
CREATE TABLE list_version (
  version bigint NOT NULL
);
INSERT INTO list_version (version) VALUES (0);

-- Moves the counter table named by the trigger's argument, in the transaction of the statement.
CREATE FUNCTION version_moved() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' OR EXISTS (SELECT 1 FROM changed) THEN
    EXECUTE format('UPDATE %I SET version = version + 1', TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['configs', 'config_types', 'service_configs'] LOOP
    EXECUTE format('CREATE TRIGGER %1$s_list_inserted AFTER INSERT ON %1$I REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION version_moved(''list_version'')', t);
    EXECUTE format('CREATE TRIGGER %1$s_list_updated AFTER UPDATE ON %1$I REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION version_moved(''list_version'')', t);
    EXECUTE format('CREATE TRIGGER %1$s_list_deleted AFTER DELETE ON %1$I REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION version_moved(''list_version'')', t);
    EXECUTE format('CREATE TRIGGER %1$s_list_truncated AFTER TRUNCATE ON %1$I FOR EACH STATEMENT EXECUTE FUNCTION version_moved(''list_version'')', t);
  END LOOP;
END $$;
