-- Which tournament each of its match tables belongs to (issue 32; docs/tournaments.md, "Reading
-- it"): the table's page links back to its tournament (GET /tables/{id}'s `tournament`). Written
-- by the tournaments' projector (server/readmodels/tournaments.py) from each round's pairing,
-- rebuilt with it. Ids and numbers only: nothing personal.
CREATE TABLE tournament_tables (
    table_id text PRIMARY KEY,
    tournament_id text NOT NULL,
    round integer NOT NULL,
    board integer NOT NULL
);

GRANT SELECT, INSERT, UPDATE ON tournament_tables TO chouette_server;
