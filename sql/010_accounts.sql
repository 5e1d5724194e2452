-- Accounts, bearer tokens and the secret dice seeds. These are not events: credentials must be
-- revocable and seeds must stay secret until their game ends (the seed is then revealed in the
-- game's game_ended event, where anyone can check it against the published commitment).

CREATE TABLE accounts (
    account_id text PRIMARY KEY,
    username text NOT NULL UNIQUE,
    display_name text NOT NULL,
    -- hashlib.scrypt(password, salt, n, r, p); NULL for guests, who cannot log in again.
    password_hash bytea,
    salt bytea,
    scrypt_n integer,
    scrypt_r integer,
    scrypt_p integer,
    guest boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a token is stored, so a copy of the database does not hand out sessions.
CREATE TABLE tokens (
    token_hash bytea PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (account_id),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX tokens_by_account ON tokens (account_id);

CREATE TABLE dice_seeds (
    table_id text NOT NULL,
    game integer NOT NULL,
    seed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, game)
);
