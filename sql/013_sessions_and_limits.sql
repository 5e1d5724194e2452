-- Sessions and fair use (issue 11): Argon2id password hashes, tokens that expire, single-use
-- tickets for the streams, and who created which table (the cap on open tables per account).

-- The Argon2id hash as its PHC string ('$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>'). The
-- scrypt columns of 010 remain for accounts that have not logged in since; a login rehashes the
-- password with Argon2id and empties them.
ALTER TABLE accounts ADD COLUMN password_phc text;

-- Every token expires; those issued before this migration 30 days after they were.
ALTER TABLE tokens ADD COLUMN expires_at timestamptz;
UPDATE tokens SET expires_at = created_at + interval '30 days';
ALTER TABLE tokens ALTER COLUMN expires_at SET NOT NULL;

-- A ticket opens one WebSocket or SSE connection (browsers cannot send a header there): only its
-- SHA-256 is kept, it lives seconds, its row is deleted when used, and it is bound to the token
-- it was asked with, so a socket opened with it stops when that token is revoked.
CREATE TABLE stream_tickets (
    ticket_hash bytea PRIMARY KEY,
    token_hash bytea NOT NULL REFERENCES tokens (token_hash) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
CREATE INDEX stream_tickets_by_expiry ON stream_tickets (expires_at);

-- Who created each table, written before the table is created: the cap on an account's open
-- tables counts these rows against the lobby (a table not projected yet counts as open).
CREATE TABLE table_creators (
    table_id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (account_id),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX table_creators_by_account ON table_creators (account_id);
