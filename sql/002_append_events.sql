-- Appending events: append_batch (the core, one transaction for many appends to distinct streams
-- of one partition) and append_events (one append; raises on any failure).
--
-- Order of work (see docs/store.md, "Append"):
--   1. lock (or create) each stream row, in stream-id order so that two batches cannot deadlock;
--   2. a known command id returns its stored outcome and writes nothing;
--   3. the expected version is checked (NULL means "any version");
--   4. the stored chain head is checked against the stream's last event;
--   5. the stream rows and the commands are written;
--   6. only then the partition counter row is locked and positions allocated, so a failed append
--      never burns a position and the counter is held for as short a time as possible. The lock
--      is held until commit: commit order equals position order within a partition;
--   7. the events are inserted and a notification 'partition:last_position' is queued (sent at
--      commit, never for a rolled-back append).
--
-- Hash of each event (bytes, big-endian integers; || is concatenation):
--   hash = sha256(prev_hash
--                 || int4(len(stream_id)) || stream_id            -- UTF-8
--                 || int8(version)
--                 || int4(len(type)) || type                      -- UTF-8
--                 || int4(schema_version)
--                 || int4(len(data)) || data)                     -- the stored bytes
--   prev_hash of version 1 is 32 zero bytes. events.store.event_store.event_hash computes the same in Python.

CREATE TYPE append_status AS ENUM (
    'appended',        -- written now
    'duplicate',       -- the command id was already recorded for this stream: its outcome
    'conflict',        -- the stream is not at the expected version (version = actual version)
    'command_reused',  -- the command id was recorded for another stream (stream_id = that one)
    'chain_broken',    -- the stream's head hash does not match its last event (version = head)
    'moved'            -- the stream lives in another partition (partition = that one)
);

CREATE TYPE append_outcome AS (
    status append_status,
    stream_id text,
    partition integer,
    version bigint,
    first_version bigint,
    last_version bigint,
    first_position bigint,
    last_position bigint,
    recorded_at timestamptz
);

-- Appends item i = (p_stream_ids[i], p_expected_versions[i], p_command_ids[i]) with the next
-- p_counts[i] events of the flattened p_types / p_schema_versions / p_datas. Stream ids and
-- command ids must be distinct within a batch. Returns one outcome per item, in item order; a
-- failed item writes nothing and does not stop the others.
CREATE FUNCTION append_batch(
    p_partition integer,
    p_stream_ids text[],
    p_expected_versions bigint[],
    p_command_ids uuid[],
    p_counts integer[],
    p_types text[],
    p_schema_versions integer[],
    p_datas bytea[]
) RETURNS SETOF append_outcome
LANGUAGE plpgsql AS $$
DECLARE
    zero_hash CONSTANT bytea := '\x0000000000000000000000000000000000000000000000000000000000000000';
    n integer := coalesce(cardinality(p_stream_ids), 0);
    total integer := coalesce(cardinality(p_types), 0);
    now_ts timestamptz := now();
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
            OR cardinality(p_datas) IS DISTINCT FROM total THEN
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

    -- 2. Commands already recorded: their stored outcome.
    FOR r IN SELECT u.i AS i, c.* FROM unnest(p_command_ids) WITH ORDINALITY AS u(id, i)
             JOIN commands c ON c.command_id = u.id LOOP
        o_stream[r.i] := r.stream_id;
        o_partition[r.i] := r.partition;
        IF r.stream_id <> p_stream_ids[r.i] THEN
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
                || int4send(octet_length(p_datas[k])) || p_datas[k]);
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
                              recorded_at)
            SELECT u.c, p_partition, u.s, u.f, u.v, now_ts
            FROM unnest(p_command_ids, p_stream_ids, o_first_version, o_last_version, n_head)
                 AS u(c, s, f, v, h)
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
                            command_id, prev_hash, hash, recorded_at)
            SELECT p_partition, last_pos - ok_total + u.o, p_stream_ids[u.it], u.v, p_types[u.k],
                   p_schema_versions[u.k], p_datas[u.k], p_command_ids[u.it], u.ph, u.h, now_ts
            FROM unnest(e_item, e_idx, e_version, e_prev, e_hash)
                 WITH ORDINALITY AS u(it, k, v, ph, h, o);
        PERFORM pg_notify('chouette_events', p_partition || ':' || last_pos);
    END IF;

    RETURN QUERY SELECT * FROM unnest(o_status, o_stream, o_partition, o_version,
        o_first_version, o_last_version, o_first_position, o_last_position, o_recorded_at);
END;
$$;

-- One append. The stream keeps the partition it was created in (p_partition is used only to
-- create it). Raises on any failure:
--   CH001 expected version mismatch; DETAIL is JSON {"stream_id", "expected", "actual"}
--   CH002 command id already used for another stream; DETAIL is JSON {"command_id", "stream_id"}
--   CH003 the stream's chain head does not match its last event; DETAIL {"stream_id", "version"}
--   CH005 malformed arguments
CREATE FUNCTION append_events(
    p_stream_id text,
    p_partition integer,
    p_expected_version bigint,
    p_command_id uuid,
    p_types text[],
    p_schema_versions integer[],
    p_datas bytea[]
) RETURNS append_outcome
LANGUAGE plpgsql AS $$
DECLARE
    part integer;
    o append_outcome;
BEGIN
    SELECT st.partition INTO part FROM streams st WHERE st.stream_id = p_stream_id;
    part := coalesce(part, p_partition);
    -- A stream's partition never changes, so 'moved' can only mean that it was created
    -- concurrently; the second try follows it.
    FOR attempt IN 1..2 LOOP
        SELECT * INTO o FROM append_batch(
            part, ARRAY[p_stream_id], ARRAY[p_expected_version], ARRAY[p_command_id],
            ARRAY[coalesce(cardinality(p_types), 0)], p_types, p_schema_versions, p_datas);
        EXIT WHEN o.status <> 'moved';
        part := o.partition;
    END LOOP;
    CASE o.status
        WHEN 'appended', 'duplicate' THEN
            RETURN o;
        WHEN 'conflict' THEN
            RAISE EXCEPTION 'stream % is at version %, not the expected %',
                p_stream_id, o.version, p_expected_version
                USING ERRCODE = 'CH001',
                      DETAIL = json_build_object(
                          'stream_id', p_stream_id, 'expected', p_expected_version,
                          'actual', o.version)::text;
        WHEN 'command_reused' THEN
            RAISE EXCEPTION 'command % was already used for stream %', p_command_id, o.stream_id
                USING ERRCODE = 'CH002',
                      DETAIL = json_build_object(
                          'command_id', p_command_id, 'stream_id', o.stream_id)::text;
        WHEN 'chain_broken' THEN
            RAISE EXCEPTION 'stream % has a broken hash chain at version %', p_stream_id, o.version
                USING ERRCODE = 'CH003',
                      DETAIL = json_build_object(
                          'stream_id', p_stream_id, 'version', o.version)::text;
        ELSE
            RAISE EXCEPTION 'stream % could not be appended to (%)', p_stream_id, o.status
                USING ERRCODE = 'CH005';
    END CASE;
END;
$$;
