-- The social read models (issue 15): ratings and profiles, each written only by its projector
-- (server/readmodels/ratings.py, server/readmodels/profiles.py) in the same transaction as its checkpoint in
-- projection_checkpoints, and rebuilt from the log by `chouette project rebuild NAME`, which
-- fills copies of these tables (`<table>__rebuild`) and renames them in place in one
-- transaction. Times are the events' own (`at`, ms since the epoch), so a rebuild writes the
-- same rows as the live projector did.

-- Ratings (FIBS formula, events/domain/ratings.py). Each match table's players and whether it is rated.
CREATE TABLE rating_tables (
    table_id text PRIMARY KEY,
    rated boolean NOT NULL,
    length integer NOT NULL,
    players text[] NOT NULL DEFAULT '{"",""}'
);
CREATE TABLE ratings (
    player text PRIMARY KEY,
    rating double precision NOT NULL,
    experience integer NOT NULL,   -- the sum of the lengths of the player's rated matches
    matches integer NOT NULL,
    won integer NOT NULL,
    updated_at bigint NOT NULL
);
CREATE INDEX ratings_by_rating ON ratings (rating DESC, player);
-- Every rated match's change, per player: the history and the change shown at a match's end.
CREATE TABLE rating_history (
    table_id text NOT NULL,
    player text NOT NULL,
    opponent text NOT NULL,
    length integer NOT NULL,
    won boolean NOT NULL,
    rating_before double precision NOT NULL,
    rating_after double precision NOT NULL,
    experience_before integer NOT NULL,
    at bigint NOT NULL,
    PRIMARY KEY (table_id, player)
);
CREATE INDEX rating_history_by_player ON rating_history (player, at DESC);

-- Profiles. Each table's kind and its game in play (who started it, when).
CREATE TABLE profile_tables (
    table_id text PRIMARY KEY,
    kind text NOT NULL,
    name text NOT NULL,
    private boolean NOT NULL,
    created_at bigint NOT NULL,
    game_started_at bigint NOT NULL DEFAULT 0,
    game_players text[] NOT NULL DEFAULT '{}'
);
-- Per player and table kind: games, matches, gammons, the ledger and the time played.
CREATE TABLE profile_stats (
    player text NOT NULL,
    kind text NOT NULL,
    games integer NOT NULL DEFAULT 0,
    games_won integer NOT NULL DEFAULT 0,
    matches integer NOT NULL DEFAULT 0,
    matches_won integer NOT NULL DEFAULT 0,
    gammons integer NOT NULL DEFAULT 0,
    ledger bigint NOT NULL DEFAULT 0,
    ms_played bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (player, kind)
);
-- Per player and table: the recent tables, and each table's ledger.
CREATE TABLE profile_table_players (
    player text NOT NULL,
    table_id text NOT NULL,
    kind text NOT NULL,
    first_at bigint NOT NULL,
    last_at bigint NOT NULL,
    games integer NOT NULL DEFAULT 0,
    ledger bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (player, table_id)
);
CREATE INDEX profile_table_players_recent ON profile_table_players (player, last_at DESC);
-- Chouette winnings per player and day (UTC), for the leaderboard over a period.
CREATE TABLE chouette_daily (
    player text NOT NULL,
    day date NOT NULL,
    amount bigint NOT NULL DEFAULT 0,
    games integer NOT NULL DEFAULT 0,
    PRIMARY KEY (player, day)
);
CREATE INDEX chouette_daily_by_day ON chouette_daily (day);

REVOKE ALL ON rating_tables, ratings, rating_history, profile_tables, profile_stats,
    profile_table_players, chouette_daily FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON rating_tables, ratings, rating_history, profile_tables,
    profile_stats, profile_table_players, chouette_daily TO chouette_server;

-- Private tables and invitations (server/http/privacy.py). Not events: an invitation code is a
-- secret that can be revoked, like a token. A private table's row is written before the table
-- is created, so that it is never visible, even for a moment, to someone without access.
CREATE TABLE private_tables (
    table_id text PRIMARY KEY,
    created_by text NOT NULL REFERENCES accounts (account_id),
    created_at timestamptz NOT NULL DEFAULT now()
);
-- Only the SHA-256 of a code is kept; invitation_id names it to its creator (to revoke it).
CREATE TABLE table_invitations (
    invitation_id text PRIMARY KEY,
    code_hash bytea NOT NULL UNIQUE,
    table_id text NOT NULL REFERENCES private_tables (table_id),
    created_by text NOT NULL REFERENCES accounts (account_id),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX table_invitations_by_table ON table_invitations (table_id);
-- Who redeemed a code: access lasts while the invitation is not revoked (a player who joined
-- the table keeps access as a player).
CREATE TABLE table_access (
    table_id text NOT NULL REFERENCES private_tables (table_id),
    account_id text NOT NULL REFERENCES accounts (account_id),
    invitation_id text NOT NULL REFERENCES table_invitations (invitation_id),
    granted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, account_id)
);
CREATE INDEX table_access_by_account ON table_access (account_id);

REVOKE ALL ON private_tables, table_invitations, table_access FROM PUBLIC;
GRANT SELECT, INSERT, DELETE ON private_tables TO chouette_server;
GRANT SELECT, INSERT, UPDATE ON table_invitations TO chouette_server;
GRANT SELECT, INSERT, UPDATE, DELETE ON table_access TO chouette_server;
