-- The lobby read model, written only by the lobby projector (server/readmodels/lobby.py) in the same
-- transaction as its checkpoint in projection_checkpoints.
CREATE TABLE lobby_tables (
    table_id text PRIMARY KEY,
    kind text NOT NULL,
    name text NOT NULL,
    options jsonb NOT NULL,
    created_by text NOT NULL,
    players text[] NOT NULL DEFAULT '{}',
    max_players integer NOT NULL,
    status text NOT NULL,          -- open | playing | finished
    games integer NOT NULL DEFAULT 0,
    version bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lobby_tables_by_kind ON lobby_tables (kind, status);
