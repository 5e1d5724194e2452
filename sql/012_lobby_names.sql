-- The lobby shows players by name: each player's display name as they joined (account id ->
-- name). Rows written before this migration fill in as players join; `chouette project
-- rebuild lobby` (or a fresh database) has them all.
ALTER TABLE lobby_tables ADD COLUMN names jsonb NOT NULL DEFAULT '{}';
