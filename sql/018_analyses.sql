-- The analysis of a table's finished games (issue 14; events/records/analysis.py, server/http/analysis.py):
-- a read model, disposable, never part of the table's log. One row per table and ply, for the
-- table's log up to `version`, the version of the last game end it covers: a later game end
-- makes the row stale and the next request computes it again.
CREATE TABLE analyses (
    table_id text NOT NULL,
    ply smallint NOT NULL CHECK (ply BETWEEN 0 AND 2),
    version bigint NOT NULL CHECK (version > 0),
    doc jsonb NOT NULL,
    computed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, ply)
);
GRANT SELECT, INSERT, UPDATE ON analyses TO chouette_server;
