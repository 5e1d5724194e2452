-- Events a projector could not apply and skipped (events/store/projection.py): an event whose data
-- its read model cannot hold (a NUL in a name...) or that does not decode. Written in the same
-- transaction as the checkpoint that moves past the event, so a skipped event is recorded once,
-- never retried and never forgotten. `reason` is the error's text, for operators only: the
-- server never sends it to clients (`GET /readyz` lists the events with their `cause`).
CREATE TABLE projection_skipped (
    name text NOT NULL,
    partition integer NOT NULL CHECK (partition >= 0),
    position bigint NOT NULL CHECK (position >= 1),
    stream_id text NOT NULL,
    version bigint NOT NULL CHECK (version >= 1),
    type text NOT NULL,
    cause text NOT NULL,           -- undecodable | unwritable | refused
    reason text NOT NULL,
    skipped_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (name, partition, position)
);
CREATE INDEX projection_skipped_by_time ON projection_skipped (skipped_at);
