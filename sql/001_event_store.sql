-- The event store: streams, the per-partition log, command outcomes.
--
-- Every event belongs to one stream (dense versions 1..n) and to one log partition (dense,
-- commit-ordered positions 1..n). Keys that are scanned by range lead with the partition so that
-- the tables can later be distributed by it (see docs/store.md, "Scaling out").

CREATE TABLE streams (
    stream_id text PRIMARY KEY,
    -- Fixed when the stream is created; later appends follow the stream, whatever they ask for.
    partition integer NOT NULL CHECK (partition >= 0),
    version bigint NOT NULL CHECK (version >= 0),
    -- Hash of the event at `version`, or 32 zero bytes while the stream is empty.
    head_hash bytea NOT NULL
);

-- One counter row per log partition. Appends lock it (UPDATE ... RETURNING) after every check,
-- so positions are allocated one transaction at a time: commit order equals position order.
CREATE TABLE log_partitions (
    partition integer PRIMARY KEY CHECK (partition >= 0),
    head bigint NOT NULL CHECK (head >= 0)
);

CREATE TABLE events (
    partition integer NOT NULL,
    position bigint NOT NULL CHECK (position >= 1),
    stream_id text NOT NULL,
    version bigint NOT NULL CHECK (version >= 1),
    type text NOT NULL,
    schema_version integer NOT NULL,
    -- The exact bytes the application stored (JSON). Never rewritten.
    data bytea NOT NULL,
    command_id uuid NOT NULL,
    prev_hash bytea NOT NULL,
    hash bytea NOT NULL,
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (partition, position),
    UNIQUE (stream_id, version)
);

-- The outcome of each command, so that a retry returns it instead of appending again. The log
-- positions are not repeated here: they are read back from `events` by (stream_id, version).
CREATE TABLE commands (
    command_id uuid PRIMARY KEY,
    partition integer NOT NULL,
    stream_id text NOT NULL,
    first_version bigint NOT NULL,
    last_version bigint NOT NULL,
    recorded_at timestamptz NOT NULL
);

-- Append-only, enforced by the database itself: no UPDATE, DELETE or TRUNCATE on events or
-- commands, whoever connects. (A superuser can still disable the triggers; verify_chain is the
-- check for that.)
CREATE FUNCTION reject_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on table % is not allowed: the event store is append-only',
        TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'CH004';
END;
$$;

CREATE TRIGGER events_append_only
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION reject_change();
CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION reject_change();
CREATE TRIGGER commands_append_only
    BEFORE UPDATE OR DELETE ON commands
    FOR EACH ROW EXECUTE FUNCTION reject_change();
CREATE TRIGGER commands_no_truncate
    BEFORE TRUNCATE ON commands
    FOR EACH STATEMENT EXECUTE FUNCTION reject_change();
