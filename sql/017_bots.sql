-- Bots (issue 14): an account marked as a bot acts only through the ordinary command path, run
-- by the server's bot runner (server/live/bots.py). Its strength says whose judgement it plays with:
-- 'basic' (pure Python) or 'gnubg' (GNU Backgammon, the optional extra). A bot's account id
-- starts 'b_', so the table view and the lobby tell its seats from the events alone. A bot has
-- no password and no token: nobody can log in as one.
ALTER TABLE accounts ADD COLUMN bot boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN bot_strength text
    CHECK (bot_strength IS NULL OR bot_strength IN ('basic', 'gnubg'));
ALTER TABLE accounts ADD CONSTRAINT accounts_bot_strength
    CHECK (bot = (bot_strength IS NOT NULL));
-- No new table: chouette_server's SELECT, INSERT, UPDATE on accounts (016) covers the columns.
