-- awa._append_key_lanes(jobs, slot, queue, priority, path, keys, lanes, seqs,
-- now, test_notify): the keyed part of awa._append_ready for one (queue,
-- priority): appends the jobs of that group whose key (awa._job_key under
-- path) is one of keys to that key's lane (lanes, seqs: aligned with keys,
-- which come in key order), in array order within each key, in one pass over
-- the batch whatever the number of keys. Returns how many rows it appended
-- and notify: whether a lane's claimers may be idle (the notify rule,
-- awa._claimers_behind, asked only when test_notify; without READ COMMITTED
-- always true).
-- Locks: each key lane's producer lock (lane_producer, lane_id), waited for,
-- in key order, all before any write and held until commit; then the lanes
-- are listed in awa.active_key_lanes (under their locks: see
-- awa.retire_idle_key_lanes) and their positions drawn (blocks of 1024 from
-- each lane's pool sequence).
-- Errors: none of its own. Isolation: the caller's (awa._append_ready).
-- Called by awa._append_ready only.
CREATE FUNCTION awa._append_key_lanes(
    p_jobs awa._job_body[], p_slot int, p_queue text, p_priority smallint, p_path text,
    p_keys text[], p_lanes int[], p_seqs regclass[], p_now timestamptz, p_test_notify boolean,
    OUT appended bigint, OUT notify boolean)
LANGUAGE plpgsql
AS $$
DECLARE
    v_lock   int := awa._lock_key('lane_producer');
    v_ix     int[];
    v_counts bigint[];
    -- key i's blocks are v_blocks[v_at[i] + 1 ..]
    v_blocks bigint[];
    v_at     bigint[];
BEGIN
    FOR i IN 1 .. cardinality(p_lanes) LOOP
        PERFORM pg_advisory_xact_lock(v_lock, p_lanes[i]);
    END LOOP;
    INSERT INTO awa.active_key_lanes (queue, lane_id, lane_queue, activated_at)
    SELECT p_queue, l.id, p_queue || '#' || l.id, p_now FROM unnest(p_lanes) AS l (id)
    ON CONFLICT DO NOTHING;

    -- Each job's key, as its index in keys (0: none, or another group),
    -- read once; then each key's count.
    v_ix := ARRAY(SELECT coalesce(u.i, 0)::int
                  FROM unnest(p_jobs) WITH ORDINALITY AS j
                  LEFT JOIN unnest(p_keys) WITH ORDINALITY AS u (key, i)
                    ON j.queue = p_queue AND j.priority = p_priority
                   AND u.key = awa._job_key(j.args, j.metadata, p_path)
                  ORDER BY j.ordinality);
    SELECT array_agg(coalesce(c.n, 0) ORDER BY u.i) INTO v_counts
    FROM generate_series(1, cardinality(p_keys)) AS u (i)
    LEFT JOIN (SELECT x.i, count(*) AS n FROM unnest(v_ix) AS x (i) WHERE x.i > 0 GROUP BY 1) AS c ON c.i = u.i;
    -- Blocks drawn set-wise (the pool sequence may be shared by several
    -- lanes: a key's blocks need not be adjacent), handed out ascending
    -- within a key so that its rows keep array order.
    SELECT array_agg(b.block ORDER BY b.i, b.block) INTO v_blocks
    FROM (SELECT u.i, nextval(u.seq) AS block
          FROM unnest(p_seqs, v_counts) WITH ORDINALITY AS u (seq, n, i),
               generate_series(1, greatest((u.n + 1023) / 1024, 1))) AS b;
    SELECT array_agg(x.at ORDER BY x.i) INTO v_at
    FROM (SELECT u.i, sum(u.nb) OVER (ORDER BY u.i) - u.nb AS at
          FROM (SELECT u.i, greatest((u.n + 1023) / 1024, 1) AS nb
                FROM unnest(v_counts) WITH ORDINALITY AS u (n, i)) AS u) AS x;

    INSERT INTO awa.ready_entries (
        ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
        queue, kind, args, tags, metadata, errors, created_at, run_at)
    SELECT p_slot, p_lanes[j.i], v_blocks[(v_at[j.i] + (j.k - 1) / 1024 + 1)::int] * 1024 + (j.k - 1) % 1024,
           j.job_id, j.run_lease, j.attempt, j.max_attempts, j.priority,
           j.queue, j.kind, j.args, j.tags, j.metadata, j.errors, j.created_at, j.run_at
    FROM (SELECT j.*, v_ix[j.ord] AS i, row_number() OVER (PARTITION BY v_ix[j.ord] ORDER BY j.ord) AS k
          FROM unnest(p_jobs) WITH ORDINALITY AS j (job_id, run_lease, attempt, max_attempts, priority, queue,
                                                   kind, args, tags, metadata, errors, created_at, run_at, ord)
          WHERE v_ix[j.ord] > 0) AS j;
    GET DIAGNOSTICS appended = ROW_COUNT;

    notify := false;
    IF p_test_notify THEN
        IF current_setting('transaction_isolation') <> 'read committed' THEN
            notify := true;
        ELSE
            FOR i IN 1 .. cardinality(p_lanes) LOOP
                CONTINUE WHEN v_counts[i] = 0 OR awa._claimers_behind(p_slot, p_lanes[i], v_blocks[v_at[i] + 1] * 1024);
                notify := true;
                EXIT;
            END LOOP;
        END IF;
    END IF;
END;
$$;
