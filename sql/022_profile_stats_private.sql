-- A profile's statistics kept apart for private tables (server/readmodels/profiles.py): a stranger's view of
-- a player (GET /players/{name}) leaves private tables out entirely, counts included; the player
-- sees the sums of both. One row per player, table kind and privacy.
ALTER TABLE profile_stats ADD COLUMN private boolean NOT NULL DEFAULT false;
-- The primary key's name is the table's first one, or its rebuilt copy's (server/readmodels/rebuild.py
-- renames a rebuilt copy into place, constraints and all).
DO $$
DECLARE
    pkey text;
BEGIN
    SELECT conname INTO STRICT pkey FROM pg_constraint
        WHERE conrelid = 'profile_stats'::regclass AND contype = 'p';
    EXECUTE format('ALTER TABLE profile_stats DROP CONSTRAINT %I', pkey);
END
$$;
ALTER TABLE profile_stats ADD PRIMARY KEY (player, kind, private);
-- The rows so far mix private tables into the public sums, and cannot be split: the profiles
-- read model starts again from the beginning of the log (the server's projector fills it anew
-- as it starts; its other tables are emptied too, since the projector adds to their sums).
TRUNCATE profile_tables, profile_stats, profile_table_players, chouette_daily;
DELETE FROM projection_checkpoints WHERE name = 'profiles';
