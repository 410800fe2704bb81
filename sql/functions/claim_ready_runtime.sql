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
-- Writes: one compact lease_claim_batches row per ready slot drawn from (in the
-- current claim slot) and one update of each touched lane's claim cursor.
-- Ready rows are never updated or deleted. A lane whose sequence has not moved
-- past its cursor is empty and costs one sequence read.
-- Locks: each non-empty lane's claim head row FOR UPDATE SKIP LOCKED, in
-- visiting order: a head another transaction holds (a claim, cancel_job) is
-- skipped in this call, never waited for, so claimers never deadlock and
-- never share a job; the skipped jobs stay above the committed cursor, where
-- awa.queue_pending sees them. An empty lane whose sequence is ahead of its
-- cursor (rolled-back or cancelled positions) is advanced past them only when
-- its producer lock (try) and head (SKIP LOCKED) are both free. Cancelled
-- jobs are never returned. Lock order: docs/storage.md, "Locks".
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

    FOR v_lane IN
        SELECT l.lane_id, l.lane_seq, h.claim_seq
        FROM awa.queue_lanes l JOIN awa.queue_claim_heads h USING (lane_id)
        WHERE l.queue = p_queue
        ORDER BY l.priority,
                 l.shard >= floor(v_spin * count(*) OVER (PARTITION BY l.priority)) DESC,
                 l.shard
    LOOP
        -- No position reserved past the cursor: nothing to claim or close.
        v_last := pg_sequence_last_value(v_lane.lane_seq);
        CONTINUE WHEN v_last IS NULL OR v_last <= v_lane.claim_seq;

        -- Unlocked probe: skip empty lanes without touching their head row.
        -- (A plain query with ORDER BY + LIMIT 1 stays on the lane index in a
        -- generic plan; inside EXISTS PostgreSQL drops the ORDER BY/LIMIT and
        -- may scan the whole claimed prefix of a slot.)
        SELECT r.lane_seq INTO v_pos FROM awa.ready_entries r
        WHERE r.lane_id = v_lane.lane_id AND r.lane_seq > v_lane.claim_seq
        ORDER BY r.lane_seq LIMIT 1;
        IF NOT FOUND THEN
            IF pg_try_advisory_xact_lock(1096237313, v_lane.lane_id) THEN
                -- No producer holds the lane, so every reserved position up to
                -- v_last is committed or gone; if none is visible, all are gone.
                SELECT r.lane_seq INTO v_pos FROM awa.ready_entries r
                WHERE r.lane_id = v_lane.lane_id AND r.lane_seq > v_lane.claim_seq
                ORDER BY r.lane_seq LIMIT 1;
                IF NOT FOUND THEN
                    -- Never wait for the head: a claimer holding it skips us
                    -- in turn, and the next claim advances the lane.
                    PERFORM FROM awa.queue_claim_heads h WHERE h.lane_id = v_lane.lane_id
                    FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        v_last := pg_sequence_last_value(v_lane.lane_seq);
                        UPDATE awa.queue_claim_heads h SET claim_seq = v_last
                        WHERE h.lane_id = v_lane.lane_id AND h.claim_seq < v_last;
                    END IF;
                END IF;
            END IF;
            CONTINUE;
        END IF;

        -- A head another transaction holds is skipped, never waited for (no
        -- lock cycle between claimers); its jobs wait for the next claim.
        SELECT h.claim_seq INTO v_cursor FROM awa.queue_claim_heads h WHERE h.lane_id = v_lane.lane_id
        FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;

        -- Take the next rows above the cursor straight off the lane index (a
        -- LIMIT scan, whatever the backlog), then drop those cancelled while
        -- available (tombstoned); repeat only if tombstones left us short. The
        -- cursor moves to the last row examined.
        v_pos := v_cursor;
        LOOP
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
        CONTINUE WHEN v_pos = v_cursor;

        UPDATE awa.queue_claim_heads SET claim_seq = v_pos WHERE lane_id = v_lane.lane_id;
        EXIT WHEN cardinality(v_rows) >= p_max;
    END LOOP;

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
