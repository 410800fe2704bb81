-- awa.claim_ready_runtime(queue, max, instance_id, now, attempt_deadline):
-- claims up to max jobs of a queue, highest priority (1) first, FIFO by lane
-- position within a lane.
-- A priority's enqueue-shard lanes are visited in a rotation that starts at a
-- random shard, so no shard starves; jobs of different shards have no order
-- between them. Each claimed job gets run_lease + 1 and a receipt identity
-- (claim_slot, receipt_id) that every finalizer must present. The batch's
-- deadline_at (past it awa.rescue_expired_deadlines closes the attempts) is
-- the claim time plus the smaller of the queue's deadline and
-- attempt_deadline; NULL only when neither is set.
--
-- Writes only appends: one compact lease_claim_batches row per ready slot
-- drawn from (in the current claim slot) and one INSERT of claim marks
-- (awa.ready_claim_marks, current queue slot), one per lane it advanced. Ready
-- rows and claim heads are never updated.
-- Locks: per lane it may take from, the lane's claim lock
-- pg_try_advisory_xact_lock(1096237317, lane_id), in visiting order: a lane
-- another claimer (or awa.cancel_job) holds is skipped in this call, never
-- waited for, so claimers never wait on each other and never share a job.
-- Under the lock the cursor is read by a statement of its own (awa.claim_cursors;
-- lock-before-snapshot: docs/storage.md, "The claim cursor").
-- Cheap skip: a lane whose tip (awa._lane_tip: the highest position its pool
-- sequence allows) is not past a lower bound of its cursor (the floor, or this
-- session's cache of cursors it saw, the setting named by
-- awa._cursor_cache_key, which a rollback forgets) is empty and costs one
-- sequence read, no lock and no marks read.
-- An empty lane whose tip is ahead of its cursor (positions reserved by
-- producers that rolled back, or drawn by another lane sharing the pool
-- sequence) is advanced to its tip by a mark, but only when the lane's
-- producer lock (1096237313) is free, i.e. no producer can still commit
-- there: a session-level try-lock held from before the lane's last probe
-- until the tip is read, then released (never held to the end of the
-- caller's transaction). Cancelled (tombstoned) jobs are never returned. Lock
-- order: docs/storage.md, "Locks".
-- Errors: AW002 queue NULL; AW010 max outside 1..1024, attempt_deadline not
-- positive.
-- Called by workers (the Go driver) and by any SQL client.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
CREATE FUNCTION awa.claim_ready_runtime(
    p_queue       text,
    p_max         int DEFAULT 1,
    p_instance_id uuid DEFAULT NULL,
    p_now         timestamptz DEFAULT NULL,
    p_attempt_deadline interval DEFAULT NULL
)
RETURNS SETOF awa.claimed_job
LANGUAGE plpgsql
-- The lane reads must walk the lane index in order (Merge Append + LIMIT) so a
-- claim costs O(max), whatever the backlog. With statistics that misjudge a
-- lane (a new lane, an analyze taken while the slot was small) the planner
-- would rather fetch the lane's whole backlog and sort it; with sorts off
-- that plan loses. (Sorts the function needs still run: they have no
-- alternative.) The penalty that disabling adds to those plans' cost would
-- trigger JIT compilation, so JIT is off too (it never pays for these small
-- statements).
SET enable_sort = off
SET jit = off
AS $$
DECLARE
    v_now         timestamptz := coalesce(p_now, now());
    v_lane        record;
    v_cursor      bigint;
    v_last        bigint;
    v_got         awa.ready_entries[];
    v_spent       bigint[];
    v_pos         bigint;
    v_first       bigint;
    v_want        int;
    v_seen        int;
    v_rows        awa.ready_entries[] := '{}';
    v_claim_slot  int;
    v_deadline_at timestamptz;
    v_batches     awa._slot_batch[];
    v_spin        float8 := random();
    v_ckey        text;
    v_cache       text[];
    v_cids        int[] := '{}';
    v_ccur        bigint[] := '{}';
    v_i           int;
    v_dirty       boolean := false;
    v_mlanes      int[] := '{}';
    v_mseqs       bigint[] := '{}';
    v_held        boolean;
BEGIN
    PERFORM awa._require_read_committed('awa.claim_ready_runtime');
    IF p_queue IS NULL THEN
        RAISE EXCEPTION 'awa: queue must not be null' USING ERRCODE = 'AW002';
    END IF;
    IF p_max IS NULL OR p_max NOT BETWEEN 1 AND 1024 THEN
        RAISE EXCEPTION 'awa: max must be between 1 and 1024, got %', p_max USING ERRCODE = 'AW010';
    END IF;
    IF p_attempt_deadline <= interval '0' THEN
        RAISE EXCEPTION 'awa: attempt_deadline must be positive, got %', p_attempt_deadline USING ERRCODE = 'AW010';
    END IF;

    -- This session's cursor cache for the queue (see the header): lane ids and
    -- cursors it saw, lower bounds since cursors only grow.
    v_ckey := awa._cursor_cache_key(p_queue);
    v_cache := string_to_array(current_setting(v_ckey, true), '|');
    IF v_cache[1] = p_queue THEN
        v_cids := string_to_array(v_cache[2], ',')::int[];
        v_ccur := string_to_array(v_cache[3], ',')::bigint[];
    END IF;

    FOR v_lane IN
        SELECT l.lane_id, l.lane_seq, greatest(h.claim_seq, v_ccur[array_position(v_cids, l.lane_id)]) AS low
        FROM awa.queue_lanes l JOIN awa.queue_claim_heads h USING (lane_id)
        WHERE l.queue = p_queue
        ORDER BY l.priority,
                 l.shard >= floor(v_spin * count(*) OVER (PARTITION BY l.priority)) DESC,
                 l.shard
    LOOP
        -- No position reserved past a lower bound of the cursor: empty.
        v_last := awa._lane_tip(v_lane.lane_seq);
        CONTINUE WHEN v_last IS NULL OR v_last <= v_lane.low;
        -- Held by another claimer (or a cancel): skip it, never wait.
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(1096237317, v_lane.lane_id);

        -- A statement of its own, after the lock: it sees the previous
        -- holder's committed mark, and a floor raised by a prune it waited for.
        SELECT c.claim_seq INTO v_cursor FROM awa.claim_cursors c WHERE c.lane_id = v_lane.lane_id;

        -- Take the next rows above the cursor straight off the lane index (a
        -- LIMIT scan, whatever the backlog), then drop those cancelled while
        -- available (tombstoned); repeat only if tombstones left us short. The
        -- cursor moves to the last row examined.
        v_pos := v_cursor;
        WHILE v_last > v_pos LOOP
            v_want := p_max - cardinality(v_rows);
            v_got := ARRAY(
                SELECT r FROM awa.ready_entries r
                WHERE r.lane_id = v_lane.lane_id AND r.lane_seq > v_pos
                ORDER BY r.lane_seq
                LIMIT v_want);
            EXIT WHEN cardinality(v_got) = 0;
            v_seen := cardinality(v_got);
            v_first := v_got[1].lane_seq;
            v_pos := v_got[v_seen].lane_seq;
            v_spent := ARRAY(
                SELECT t.lane_seq FROM awa.ready_tombstones t
                WHERE t.lane_id = v_lane.lane_id AND t.lane_seq BETWEEN v_first AND v_pos);
            IF cardinality(v_spent) > 0 THEN
                v_got := ARRAY(SELECT g FROM unnest(v_got) AS g WHERE g.lane_seq <> ALL (v_spent));
            END IF;
            v_rows := v_rows || v_got;
            EXIT WHEN v_seen < v_want OR cardinality(v_rows) >= p_max;
        END LOOP;

        -- Positions reserved above the cursor but no row visible: a producer
        -- is still open, or rolled back, or the positions were another lane's
        -- (a shared pool sequence). Only when no producer holds the lane is
        -- every position it reserved committed or gone; if none is visible
        -- (asked again, now), the cursor passes the tip: a later producer of
        -- the lane takes its lock after this claim and draws above it.
        -- The producer lock is needed only from before that probe until the
        -- tip is read: a producer that takes it afterwards draws above the
        -- tip, whether or not this claim has committed its mark yet. So it is
        -- a session-level try-lock, released at once, not a transaction lock
        -- that would keep the lane's producers waiting (and could close a
        -- deadlock with one) until the caller's transaction ends. The block
        -- releases it on any error, a query cancel included.
        IF v_pos = v_cursor AND v_last > v_cursor THEN
            v_held := false;
            BEGIN
                v_held := pg_try_advisory_lock(1096237313, v_lane.lane_id);
                IF v_held THEN
                    PERFORM FROM awa.ready_entries r WHERE r.lane_id = v_lane.lane_id AND r.lane_seq > v_cursor
                    ORDER BY r.lane_seq LIMIT 1;
                    IF NOT FOUND THEN
                        v_pos := awa._lane_tip(v_lane.lane_seq);
                    END IF;
                    v_held := NOT pg_advisory_unlock(1096237313, v_lane.lane_id);
                END IF;
            EXCEPTION WHEN query_canceled OR others THEN
                IF v_held THEN
                    PERFORM pg_advisory_unlock(1096237313, v_lane.lane_id);
                END IF;
                RAISE;
            END;
        END IF;

        IF v_pos > v_cursor THEN
            v_mlanes := v_mlanes || v_lane.lane_id;
            v_mseqs := v_mseqs || v_pos;
        END IF;
        IF v_pos > v_lane.low THEN
            v_i := array_position(v_cids, v_lane.lane_id);
            IF v_i IS NULL THEN
                v_cids := v_cids || v_lane.lane_id;
                v_ccur := v_ccur || v_pos;
            ELSE
                v_ccur[v_i] := v_pos;
            END IF;
            v_dirty := true;
        END IF;
        EXIT WHEN cardinality(v_rows) >= p_max;
    END LOOP;

    IF cardinality(v_mlanes) > 0 THEN
        INSERT INTO awa.ready_claim_marks (ready_slot, lane_id, claim_seq)
        SELECT s.slot, m.lane_id, m.claim_seq
        FROM awa._current_slot('queue') AS s (slot), unnest(v_mlanes, v_mseqs) AS m (lane_id, claim_seq);
    END IF;
    IF v_dirty THEN
        PERFORM set_config(v_ckey, concat_ws('|', p_queue, array_to_string(v_cids, ','), array_to_string(v_ccur, ',')),
                           false);
    END IF;

    IF cardinality(v_rows) = 0 THEN
        RETURN;
    END IF;

    v_claim_slot := awa._current_slot('claim');
    -- least() ignores NULLs: either bound alone applies.
    SELECT v_now + least(m.deadline, p_attempt_deadline) INTO v_deadline_at
    FROM (SELECT) AS one LEFT JOIN awa.queue_meta m ON m.queue = p_queue;

    -- One compact claim batch per ready slot drawn from; then the jobs in claim
    -- order (priority, then lane position), each with its batch's receipt.
    v_batches := ARRAY(
        SELECT ROW(s.ready_slot, nextval('awa.claim_batch_id_seq'))::awa._slot_batch
        FROM (SELECT DISTINCT r.ready_slot FROM unnest(v_rows) AS r ORDER BY 1) AS s);

    INSERT INTO awa.lease_claim_batches (
        claim_slot, batch_id, ready_slot, queue, claimed_at, instance_id, deadline_at,
        job_ids, run_leases, lane_ids, lane_seqs)
    SELECT v_claim_slot, b.batch_id, b.ready_slot, p_queue, v_now, p_instance_id, v_deadline_at,
           array_agg(r.job_id ORDER BY r.ordinality), array_agg(r.run_lease + 1 ORDER BY r.ordinality),
           array_agg(r.lane_id ORDER BY r.ordinality), array_agg(r.lane_seq ORDER BY r.ordinality)
    FROM unnest(v_rows) WITH ORDINALITY AS r
    JOIN unnest(v_batches) AS b ON b.ready_slot = r.ready_slot
    GROUP BY b.ready_slot, b.batch_id;

    RETURN QUERY
    SELECT r.job_id, r.run_lease + 1, v_claim_slot,
           b.batch_id * 1024 + row_number() OVER (PARTITION BY r.ready_slot ORDER BY r.ordinality) - 1,
           r.kind, r.queue, r.priority, r.args, r.attempt + 1, r.max_attempts,
           r.tags, r.metadata, r.errors, r.created_at, r.run_at, v_now, v_deadline_at
    FROM unnest(v_rows) WITH ORDINALITY AS r
    JOIN unnest(v_batches) AS b ON b.ready_slot = r.ready_slot
    ORDER BY r.ordinality;
END;
$$;
