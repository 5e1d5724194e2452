-- append_batch finds each item's stream, its command (a retry?) and its stream's last event
-- by key: one index probe each. The statements inside the function run on plans that each
-- connection caches; made while the tables are small (a fresh database, a server's first
-- minutes), they are sequential scans, and they are kept until the next ANALYZE of the table,
-- however much it has grown meanwhile: every append then reads all of `commands` and `events`.
-- Measured at 2,000 human-pace tables on a fresh database: 12 million `commands` rows and 10
-- million `events` rows read in 10 s, PostgreSQL using 0.9 of a core (0.42 with this). With
-- sequential scans priced out inside the function, each lookup is an index probe whatever the
-- table's size when its plan was made (tests/events/test_append_plans.py).
ALTER FUNCTION append_batch(integer, text[], bigint[], uuid[], integer[], text[], integer[],
                            bytea[], text[], bytea[])
    SET enable_seqscan = off;
