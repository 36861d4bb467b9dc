-- The principal the gateway caches for each API session carries its identity's authenticators
-- and MFA state (what current-identity renders). Every change to them records
-- `edge.auth.principal.updated` for the identity in the outbox, in the transaction of the change,
-- whichever statement made it, so cached principals are dropped. An identity without an API
-- session has no principal to drop (a bulk import records nothing); the lockout counters and
-- the TOTP replay step are not part of a principal and record nothing.
CREATE FUNCTION record_principal_updated(identity text) RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event text := gen_random_uuid()::text;
BEGIN
  IF EXISTS (SELECT 1 FROM api_sessions WHERE identity_id = identity) THEN
    INSERT INTO outbox (event_id, subject, data, headers)
    VALUES (event, 'edge.auth.principal.updated', jsonb_build_object('identityId', identity), jsonb_build_object('edge-event-id', event));
  END IF;
END $$;

CREATE FUNCTION principal_summary_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM record_principal_updated(OLD.identity_id);
    RETURN OLD;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.identity_id IS DISTINCT FROM NEW.identity_id THEN
    PERFORM record_principal_updated(OLD.identity_id);
  END IF;
  PERFORM record_principal_updated(NEW.identity_id);
  RETURN NEW;
END $$;

CREATE TRIGGER authenticators_principal_summary
  AFTER INSERT OR DELETE ON authenticators
  FOR EACH ROW EXECUTE FUNCTION principal_summary_changed();
CREATE TRIGGER authenticators_principal_summary_update
  AFTER UPDATE ON authenticators
  FOR EACH ROW
  WHEN (OLD.identity_id IS DISTINCT FROM NEW.identity_id OR OLD.username IS DISTINCT FROM NEW.username
    OR OLD.fingerprint IS DISTINCT FROM NEW.fingerprint OR OLD.method IS DISTINCT FROM NEW.method)
  EXECUTE FUNCTION principal_summary_changed();

CREATE TRIGGER mfas_principal_summary
  AFTER DELETE ON mfas
  FOR EACH ROW WHEN (OLD.is_verified)
  EXECUTE FUNCTION principal_summary_changed();
CREATE TRIGGER mfas_principal_summary_update
  AFTER UPDATE ON mfas
  FOR EACH ROW WHEN (OLD.is_verified IS DISTINCT FROM NEW.is_verified OR OLD.identity_id IS DISTINCT FROM NEW.identity_id)
  EXECUTE FUNCTION principal_summary_changed();
