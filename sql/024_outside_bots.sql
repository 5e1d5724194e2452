-- Outside bots (issue 33, docs/bots.md "Outside bots"): a registered account its owner marked as
-- a bot account (POST /me/bot), played by a program of their own through the public API. Not
-- the server's own bots (017: accounts.bot, ids 'b_...', run by server/live/bots.py's runner,
-- which reads accounts.bot only and so never drives one of these). The mark is one-way: once
-- set it stays, and the database refuses to clear it.
ALTER TABLE accounts ADD COLUMN outside_bot boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN outside_bot_at timestamptz;
ALTER TABLE accounts ADD CONSTRAINT accounts_outside_bot
    CHECK (NOT outside_bot OR (NOT guest AND NOT bot AND outside_bot_at IS NOT NULL));

CREATE FUNCTION outside_bot_stays() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.outside_bot AND (NOT NEW.outside_bot
            OR NEW.outside_bot_at IS DISTINCT FROM OLD.outside_bot_at) THEN
        RAISE EXCEPTION 'the account % is a bot account for good', OLD.account_id
            USING ERRCODE = 'CH007';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER accounts_outside_bot_stays BEFORE UPDATE OF outside_bot, outside_bot_at
    ON accounts FOR EACH ROW EXECUTE FUNCTION outside_bot_stays();

-- Who sat down as a bot (player_joined.bot), as the lobby and the ratings read the log: the
-- lobby's `bots`, and a rated match's players who sat as bots with whether the table rates
-- them (options.bots_rated). Both read models are rebuilt from the log, these columns with them.
ALTER TABLE lobby_tables ADD COLUMN bots text[] NOT NULL DEFAULT '{}';
ALTER TABLE rating_tables ADD COLUMN bots text[] NOT NULL DEFAULT '{}';
ALTER TABLE rating_tables ADD COLUMN bots_rated boolean NOT NULL DEFAULT false;
-- No new table: chouette_server's grants on accounts (016), lobby_tables (016) and rating_tables
-- (019) cover the columns.
