-- Least privilege (issue 12): the server runs as a role that cannot switch append-only off, and
-- the hash chain covers each event's command id and time of recording.
--
-- Two roles (docs/store.md, "Roles"):
--   the owner   whoever runs the migrations (`chouette migrate`): it owns every table and
--               function, so only it (or a superuser) can alter a table, drop or disable a
--               trigger, or replace a function;
--   chouette_server
--               the server's role (NOLOGIN here: the server logs in as it, or as a role that is
--               a member of it). It may read everything; write only the read models and session
--               tables it keeps; and append events, keep dice seeds and seal old ones only through
--               the functions below, which run as the owner (SECURITY DEFINER, fixed search_path).
--               It has no UPDATE, DELETE or TRUNCATE on events, commands, streams,
--               log_partitions or dice_seeds, and no INSERT on them either.
--
-- Roles are cluster-wide: the role is created here only when it does not exist (by a role that
-- may create roles), so that any number of databases on one server share it; the grants are
-- per database.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'chouette_server') THEN
        BEGIN
            CREATE ROLE chouette_server NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN
                NULL;  -- created meanwhile by another database's migration
            WHEN insufficient_privilege THEN
                RAISE EXCEPTION 'the role chouette_server does not exist and % may not create it',
                    current_user
                    USING HINT = 'as a superuser: CREATE ROLE chouette_server NOLOGIN';
        END;
    END IF;
END;
$$;

-- Chain version 2: the hash also covers command_id and recorded_at. Rows stored before this
-- migration keep version 1 (the column's value for them) and still verify under it; every row
-- appended from now on is version 2. Stored rows are never rewritten.
ALTER TABLE events ADD COLUMN chain_version smallint NOT NULL DEFAULT 1
    CHECK (chain_version IN (1, 2));
ALTER TABLE events ALTER COLUMN chain_version SET DEFAULT 2;

-- append_batch as in 015_command_actors_sealed_seeds.sql, but for the hash and the new column:
--   hash = sha256(prev_hash
--                 || int4(len(stream_id)) || stream_id            -- UTF-8
--                 || int8(version)
--                 || int4(len(type)) || type                      -- UTF-8
--                 || int4(schema_version)
--                 || int4(len(data)) || data                      -- the stored bytes
--                 || command_id                                   -- 16 bytes (uuid_send)
--                 || int8(recorded_at))                           -- microseconds since the epoch
-- (big-endian integers). events.store.event_store.event_hash computes the same in Python.
CREATE OR REPLACE FUNCTION append_batch(
    p_partition integer,
    p_stream_ids text[],
    p_expected_versions bigint[],
    p_command_ids uuid[],
    p_counts integer[],
    p_types text[],
    p_schema_versions integer[],
    p_datas bytea[],
    p_actors text[] DEFAULT NULL,
    p_digests bytea[] DEFAULT NULL
) RETURNS SETOF append_outcome
LANGUAGE plpgsql AS $$
DECLARE
    zero_hash CONSTANT bytea := '\x0000000000000000000000000000000000000000000000000000000000000000';
    n integer := coalesce(cardinality(p_stream_ids), 0);
    total integer := coalesce(cardinality(p_types), 0);
    now_ts timestamptz := now();
    -- recorded_at as hashed (chain version 2): microseconds since 1970-01-01 00:00 UTC.
    now_bytes bytea := int8send((extract(epoch FROM now()) * 1000000)::bigint);
    cid bytea;
    -- The outcome of each item, column by column.
    o_status append_status[] := array_fill('appended'::append_status, ARRAY[n]);
    o_stream text[] := p_stream_ids;
    o_partition integer[] := array_fill(NULL::integer, ARRAY[n]);
    o_version bigint[] := array_fill(NULL::bigint, ARRAY[n]);
    o_first_version bigint[] := array_fill(NULL::bigint, ARRAY[n]);
    o_last_version bigint[] := array_fill(NULL::bigint, ARRAY[n]);
    o_first_position bigint[] := array_fill(NULL::bigint, ARRAY[n]);
    o_last_position bigint[] := array_fill(NULL::bigint, ARRAY[n]);
    o_recorded_at timestamptz[] := array_fill(NULL::timestamptz, ARRAY[n]);
    -- Each stream as locked: its version and head hash.
    s_version bigint[] := array_fill(NULL::bigint, ARRAY[n]);
    s_head bytea[] := array_fill(NULL::bytea, ARRAY[n]);
    firsts integer[] := '{}';       -- index of each item's first event in the flattened arrays
    r record;
    i integer;
    j integer;
    k integer;
    v_part integer;
    v_version bigint;
    v_head bytea;
    sid bytea;
    t bytea;
    h bytea;
    ok_total integer := 0;
    last_pos bigint;
    next_pos bigint;
    -- The new head hash of each item that passes every check.
    n_head bytea[] := array_fill(NULL::bytea, ARRAY[n]);
    -- For each event to write: its item, its index in the flattened arrays, its version and
    -- hashes. (Filled by index: assigning an element is cheap, concatenating copies.)
    m integer := 0;
    e_item integer[] := '{}';
    e_idx integer[] := '{}';
    e_version bigint[] := '{}';
    e_prev bytea[] := '{}';
    e_hash bytea[] := '{}';
BEGIN
    IF p_partition IS NULL OR p_partition < 0
            OR cardinality(p_expected_versions) IS DISTINCT FROM n
            OR cardinality(p_command_ids) IS DISTINCT FROM n
            OR cardinality(p_counts) IS DISTINCT FROM n
            OR cardinality(p_schema_versions) IS DISTINCT FROM total
            OR cardinality(p_datas) IS DISTINCT FROM total
            OR (p_actors IS NOT NULL AND cardinality(p_actors) IS DISTINCT FROM n)
            OR (p_digests IS NOT NULL AND cardinality(p_digests) IS DISTINCT FROM n) THEN
        RAISE EXCEPTION 'append_batch: arrays of mismatched lengths'
            USING ERRCODE = 'CH005';
    END IF;
    IF n = 0 THEN
        RETURN;
    END IF;
    k := 1;
    FOR i IN 1..n LOOP
        EXIT WHEN p_counts[i] IS NULL OR p_counts[i] < 1;
        firsts[i] := k;
        k := k + p_counts[i];
    END LOOP;
    IF cardinality(firsts) <> n OR k - 1 <> total
            OR array_position(p_stream_ids, NULL) IS NOT NULL
            OR array_position(p_command_ids, NULL) IS NOT NULL
            OR (n > 1 AND ((SELECT count(DISTINCT s) FROM unnest(p_stream_ids) s) <> n
                           OR (SELECT count(DISTINCT c) FROM unnest(p_command_ids) c) <> n)) THEN
        RAISE EXCEPTION 'append_batch: malformed batch (% items, % events): every item needs '
            'a stream id, a command id and one or more events; ids distinct', n, total
            USING ERRCODE = 'CH005';
    END IF;

    -- 1. Lock the existing streams, in a fixed order (byte order of the id) so that two
    --    batches touching the same streams do not deadlock, then create and lock the others,
    --    in the same order. (Should a stream be created by someone else between the two steps,
    --    a deadlock is possible; PostgreSQL then aborts one batch, whose appends the client
    --    sends again one by one.)
    FOR r IN SELECT st.stream_id, st.partition, st.version, st.head_hash FROM streams st
             WHERE st.stream_id = ANY (p_stream_ids)
             ORDER BY st.stream_id COLLATE "C" FOR UPDATE LOOP
        i := array_position(p_stream_ids, r.stream_id);
        o_partition[i] := r.partition;
        s_version[i] := r.version;
        s_head[i] := r.head_hash;
    END LOOP;
    IF array_position(s_version, NULL) IS NOT NULL THEN
        FOR r IN SELECT u.i AS i, u.s AS s FROM unnest(p_stream_ids, s_version) WITH ORDINALITY
                     AS u(s, v, i)
                 WHERE u.v IS NULL ORDER BY u.s COLLATE "C" LOOP
            INSERT INTO streams (stream_id, partition, version, head_hash)
                VALUES (r.s, p_partition, 0, zero_hash)
                ON CONFLICT (stream_id) DO NOTHING;
            SELECT st.partition, st.version, st.head_hash INTO v_part, v_version, v_head
                FROM streams st WHERE st.stream_id = r.s FOR UPDATE;
            o_partition[r.i] := v_part;
            s_version[r.i] := v_version;
            s_head[r.i] := v_head;
        END LOOP;
    END IF;

    -- 2. Commands already recorded: their stored outcome, for the same command by the same
    --    actor only. Another stream, another actor or another command (digest) is
    --    'command_reused', and nothing of the first outcome but its stream is returned.
    FOR r IN SELECT u.i AS i, c.* FROM unnest(p_command_ids) WITH ORDINALITY AS u(id, i)
             JOIN commands c ON c.command_id = u.id LOOP
        o_stream[r.i] := r.stream_id;
        o_partition[r.i] := r.partition;
        IF r.stream_id <> p_stream_ids[r.i]
                OR r.actor IS DISTINCT FROM p_actors[r.i]
                OR r.digest IS DISTINCT FROM p_digests[r.i] THEN
            o_status[r.i] := 'command_reused';
        ELSE
            o_status[r.i] := 'duplicate';
            o_first_version[r.i] := r.first_version;
            o_last_version[r.i] := r.last_version;
            o_recorded_at[r.i] := r.recorded_at;
            o_first_position[r.i] := (SELECT e.position FROM events e
                WHERE e.stream_id = r.stream_id AND e.version = r.first_version);
            o_last_position[r.i] := (SELECT e.position FROM events e
                WHERE e.stream_id = r.stream_id AND e.version = r.last_version);
        END IF;
    END LOOP;

    -- 3. Partition and expected version; 4. each chain head against the stream's stored last
    --    event. (One pass: the join yields every item.)
    FOR r IN SELECT u.i AS i, u.v AS v, e.hash AS hash
             FROM unnest(p_stream_ids, s_version) WITH ORDINALITY AS u(s, v, i)
             LEFT JOIN events e ON e.stream_id = u.s AND e.version = u.v LOOP
        i := r.i;
        CONTINUE WHEN o_status[i] <> 'appended';
        IF o_partition[i] <> p_partition THEN
            o_status[i] := 'moved';
        ELSIF p_expected_versions[i] IS NOT NULL AND p_expected_versions[i] <> r.v THEN
            o_status[i] := 'conflict';
            o_version[i] := r.v;
        ELSIF (r.v = 0 AND s_head[i] <> zero_hash)
                OR (r.v > 0 AND r.hash IS DISTINCT FROM s_head[i]) THEN
            o_status[i] := 'chain_broken';
            o_version[i] := r.v;
        END IF;
    END LOOP;

    -- The chains, computed before the partition lock is taken.
    FOR i IN 1..n LOOP
        CONTINUE WHEN o_status[i] <> 'appended';
        sid := convert_to(p_stream_ids[i], 'UTF8');
        cid := uuid_send(p_command_ids[i]);
        h := s_head[i];
        FOR j IN 1..p_counts[i] LOOP
            k := firsts[i] + j - 1;
            t := convert_to(p_types[k], 'UTF8');
            m := m + 1;
            e_item[m] := i;
            e_idx[m] := k;
            e_version[m] := s_version[i] + j;
            e_prev[m] := h;
            h := sha256(
                h
                || int4send(octet_length(sid)) || sid
                || int8send(s_version[i] + j)
                || int4send(octet_length(t)) || t
                || int4send(p_schema_versions[k])
                || int4send(octet_length(p_datas[k])) || p_datas[k]
                || cid || now_bytes);
            e_hash[m] := h;
        END LOOP;
        n_head[i] := h;
        o_first_version[i] := s_version[i] + 1;
        o_last_version[i] := s_version[i] + p_counts[i];
        o_recorded_at[i] := now_ts;
        ok_total := ok_total + p_counts[i];
    END LOOP;

    IF ok_total > 0 THEN
        -- 5. Stream heads and command outcomes.
        UPDATE streams st SET version = u.v, head_hash = u.h
            FROM unnest(p_stream_ids, o_last_version, n_head) AS u(s, v, h)
            WHERE u.h IS NOT NULL AND st.stream_id = u.s;
        INSERT INTO commands (command_id, partition, stream_id, first_version, last_version,
                              recorded_at, actor, digest)
            SELECT u.c, p_partition, u.s, u.f, u.v, now_ts, p_actors[u.o], p_digests[u.o]
            FROM unnest(p_command_ids, p_stream_ids, o_first_version, o_last_version, n_head)
                 WITH ORDINALITY AS u(c, s, f, v, h, o)
            WHERE u.h IS NOT NULL;

        -- 6. Positions: the partition counter row, locked until commit.
        UPDATE log_partitions lp SET head = lp.head + ok_total WHERE lp.partition = p_partition
            RETURNING lp.head INTO last_pos;
        IF NOT FOUND THEN
            INSERT INTO log_partitions (partition, head) VALUES (p_partition, 0)
                ON CONFLICT (partition) DO NOTHING;
            UPDATE log_partitions SET head = head + ok_total WHERE partition = p_partition
                RETURNING head INTO last_pos;
        END IF;
        next_pos := last_pos - ok_total + 1;
        FOR i IN 1..n LOOP
            CONTINUE WHEN o_status[i] <> 'appended';
            o_first_position[i] := next_pos;
            next_pos := next_pos + p_counts[i];
            o_last_position[i] := next_pos - 1;
        END LOOP;

        -- 7. The events, and a wake-up for tailing readers.
        INSERT INTO events (partition, position, stream_id, version, type, schema_version, data,
                            command_id, prev_hash, hash, recorded_at, chain_version)
            SELECT p_partition, last_pos - ok_total + u.o, p_stream_ids[u.it], u.v, p_types[u.k],
                   p_schema_versions[u.k], p_datas[u.k], p_command_ids[u.it], u.ph, u.h, now_ts,
                   2
            FROM unnest(e_item, e_idx, e_version, e_prev, e_hash)
                 WITH ORDINALITY AS u(it, k, v, ph, h, o);
        PERFORM pg_notify('chouette_events', p_partition || ':' || last_pos);
    END IF;

    RETURN QUERY SELECT * FROM unnest(o_status, o_stream, o_partition, o_version,
        o_first_version, o_last_version, o_first_position, o_last_position, o_recorded_at);
END;
$$;


-- The dice seeds: kept and sealed through functions only, so that the server's role cannot
-- replace or delete a kept seed.

-- events.store.seed_store.SeedStore.keep: keep a game's sealed seed, or return the one already kept
-- (never replacing it).
CREATE FUNCTION keep_dice_seed(p_table_id text, p_game integer, p_seed bytea)
RETURNS TABLE (seed bytea, sealed boolean)
LANGUAGE sql AS $$
    INSERT INTO dice_seeds AS d (table_id, game, seed, sealed)
        VALUES (p_table_id, p_game, p_seed, true)
        ON CONFLICT (table_id, game) DO UPDATE SET seed = d.seed
        RETURNING d.seed, d.sealed;
$$;

-- events.store.seed_store.SeedStore._seal: seal seeds kept in the clear (rows written before 015);
-- a sealed row is never changed. Returns how many rows were sealed now.
CREATE FUNCTION seal_dice_seeds(p_table_ids text[], p_games integer[], p_seeds bytea[])
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    UPDATE dice_seeds d SET seed = u.s, sealed = true
        FROM unnest(p_table_ids, p_games, p_seeds) AS u(t, g, s)
        WHERE d.table_id = u.t AND d.game = u.g AND NOT d.sealed;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END;
$$;

-- The functions that write the append-only tables run as their owner, with the search path
-- fixed to the schema they were created in (no object of the caller's can stand in for a table).
DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY[
        'append_batch(integer, text[], bigint[], uuid[], integer[], text[], integer[], bytea[],'
            ' text[], bytea[])',
        'append_events(text, integer, bigint, uuid, text[], integer[], bytea[], text, bytea)',
        'keep_dice_seed(text, integer, bytea)',
        'seal_dice_seeds(text[], integer[], bytea[])'
    ] LOOP
        EXECUTE format('ALTER FUNCTION %s SECURITY DEFINER SET search_path = pg_catalog, %I, pg_temp',
                       f, current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO chouette_server', f);
    END LOOP;
    REVOKE ALL ON FUNCTION reject_change() FROM PUBLIC;
    -- Nobody but the owner creates objects in the schema (PostgreSQL 15's default; older
    -- servers let every role create in "public"). Skipped when the owner does not own it.
    BEGIN
        EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC', current_schema());
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'could not revoke CREATE on schema % from PUBLIC', current_schema();
    END;
END;
$$;

-- What the server's role may do with each table. Read everything; write only what the server
-- keeps itself (read models with their checkpoints, accounts and sessions); never UPDATE,
-- DELETE or TRUNCATE a table of the store. A later migration that adds a table grants on it.
REVOKE ALL ON events, commands, streams, log_partitions, dice_seeds, projection_checkpoints,
    projection_skipped, lobby_tables, accounts, tokens, stream_tickets, table_creators,
    schema_migrations FROM PUBLIC;
GRANT SELECT ON events, commands, streams, log_partitions, dice_seeds, schema_migrations
    TO chouette_server;
-- Projectors: a checkpoint row is created, then moved on (never deleted); a skipped event is
-- recorded again when a rebuilt read model meets it.
GRANT SELECT, INSERT, UPDATE ON projection_checkpoints, projection_skipped, lobby_tables
    TO chouette_server;
-- Accounts are registered and rehashed; tokens are issued and revoked.
GRANT SELECT, INSERT, UPDATE ON accounts, tokens TO chouette_server;
-- A ticket is deleted when used or expired; a table's creator row when its creation failed.
GRANT SELECT, INSERT, DELETE ON stream_tickets, table_creators TO chouette_server;
