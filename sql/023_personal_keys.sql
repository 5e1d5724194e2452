-- Crypto-shredding (issue 31; docs/privacy.md): what a person typed into an event (their display
-- name, their chat, the names of the tables they created) is sealed there with AES-256-GCM
-- under a data key of their own, kept here, wrapped (AES-256-GCM) by a master key the server
-- holds outside the database (derived from CHOUETTE_SEED_KEY). Erasing an account destroys its
-- key: `wrapped` becomes NULL and `destroyed_at` says when, and the sealed values in the log,
-- unchanged, can never be opened again. A destroyed key never comes back (the trigger below),
-- and the row stays, so that no key can be made for an erased account afterwards.
CREATE TABLE personal_keys (
    account_id text PRIMARY KEY,
    wrapped bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    destroyed_at timestamptz,
    CHECK ((wrapped IS NULL) = (destroyed_at IS NOT NULL))
);

CREATE FUNCTION personal_key_stays_destroyed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.destroyed_at IS NOT NULL THEN
        RAISE EXCEPTION 'the data key of % was destroyed and cannot be restored', OLD.account_id
            USING ERRCODE = 'CH006';
    END IF;
    IF OLD.wrapped IS DISTINCT FROM NEW.wrapped AND NEW.wrapped IS NOT NULL THEN
        RAISE EXCEPTION 'the data key of % cannot be replaced, only destroyed', OLD.account_id
            USING ERRCODE = 'CH006';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER personal_keys_stay_destroyed BEFORE UPDATE ON personal_keys
    FOR EACH ROW EXECUTE FUNCTION personal_key_stays_destroyed();
CREATE TRIGGER personal_keys_no_delete BEFORE DELETE ON personal_keys
    FOR EACH ROW EXECUTE FUNCTION reject_change();
CREATE TRIGGER personal_keys_no_truncate BEFORE TRUNCATE ON personal_keys
    FOR EACH STATEMENT EXECUTE FUNCTION reject_change();

REVOKE ALL ON personal_keys FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON personal_keys TO chouette_server;

-- An erased account keeps its row (tokens, table creators and invitations refer to it), its
-- username and display name replaced by the pseudonym, its password hashes cleared.
ALTER TABLE accounts ADD COLUMN erased_at timestamptz;

-- Erasure drops an erased player's tables' analyses (a read model: their documents name the
-- players; they are computed again on request, under the pseudonym).
GRANT DELETE ON analyses TO chouette_server;
