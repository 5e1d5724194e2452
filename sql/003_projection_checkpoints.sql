-- Where each projector has got to in each log partition. A projector writes its checkpoint in the
-- same transaction as the read-model rows it derives from the events up to that position.
CREATE TABLE projection_checkpoints (
    name text NOT NULL,
    partition integer NOT NULL CHECK (partition >= 0),
    position bigint NOT NULL CHECK (position >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (name, partition)
);
