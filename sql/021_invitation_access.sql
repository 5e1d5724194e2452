-- An account's access to a private table is kept per invitation it redeemed (server/http/privacy.py):
-- one row per table, account and invitation, so that an account who redeemed two codes of a
-- table and sees one of them revoked keeps the access the other gave. (Until now a second
-- redemption replaced the first's row, and revoking the second code took away access the first
-- still gave.) The rows kept are each account's latest redemption; the earlier ones were
-- overwritten and cannot be recovered.
ALTER TABLE table_access DROP CONSTRAINT table_access_pkey;
ALTER TABLE table_access ADD PRIMARY KEY (table_id, account_id, invitation_id);
