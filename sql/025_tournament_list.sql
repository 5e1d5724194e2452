-- The tournaments' list (GET /tournaments; docs/tournaments.md, "Reading it"), written only by
-- its projector (server/readmodels/tournaments.py) in the same transaction as its checkpoint,
-- and rebuilt like the others (chouette project rebuild tournaments). `name` is the director's
-- words, opened with their key: emptied when they are erased (docs/privacy.md).
CREATE TABLE tournament_list (
    tournament_id text PRIMARY KEY,
    name text NOT NULL,
    format text NOT NULL,
    director text NOT NULL,
    private boolean NOT NULL,
    rated boolean NOT NULL,
    status text NOT NULL,          -- entering | playing | finished
    entrants integer NOT NULL,
    rounds integer NOT NULL,
    winner text,
    created_at bigint NOT NULL,    -- ms since the epoch, the creation's
    version bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tournament_list_newest ON tournament_list (created_at DESC, tournament_id);

-- Who may see a private tournament: its director, the invited and its entrants.
CREATE TABLE tournament_members (
    tournament_id text NOT NULL,
    account_id text NOT NULL,
    PRIMARY KEY (tournament_id, account_id)
);
CREATE INDEX tournament_members_by_account ON tournament_members (account_id);

GRANT SELECT, INSERT, UPDATE ON tournament_list, tournament_members TO chouette_server;
