-- awa.cancel_job(job_id, reason, now): an operator cancels one job by id,
-- whatever it is doing:
--   scheduled/retryable -> removed from the backlog, ends cancelled
--   waiting_external    -> a parked job (awa.external_waits) ends cancelled;
--                          its callback token resolves nothing any more
--   available           -> a ready tombstone spends its lane position (the ready
--                          row is not touched), ends cancelled
--   running             -> its attempt is closed like a worker cancel; the
--                          worker's later finalizer is stale; on commit a
--                          NOTIFY on the control channel 'awa:' (payload
--                          '<job_id>:<run_lease>') tells the runtime to cancel
--                          the handler (docs/storage.md, "Every attempt ends")
-- Returns one row: applied with state 'cancelled', or stale when the running
-- attempt was finalized concurrently and the job went on (parked
-- concurrently: the parked job is cancelled).
-- Errors: AW010 job_id NULL; AW020 no such job; AW021 the job is already
-- completed, cancelled or failed (or in the DLQ: purge it instead).
-- Locks: the deferred or parked row; or ACCESS SHARE on awa.cursor_marks (before the
-- ready rows), then the lane's claim lock (lane_claim, lane_id),
-- waited for: claimers only try it, so they skip the lane meanwhile and no
-- cycle forms; the cursor is then read by a statement of its own
-- (docs/storage.md, "The claim cursor"); or the claim-batch lock of
-- awa._close_claims.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.cancel_job(p_job_id bigint, p_reason text DEFAULT NULL, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves (and hold partition locks while it compiles). The
-- cursor read walks each marks index backwards, never sorts a lane's marks.
SET jit = off
SET enable_sort = off
AS $$
DECLARE
    v_now    timestamptz := coalesce(p_now, now());
    v_reason text := coalesce(p_reason, 'cancelled by operator');
    v_lease  bigint;
    v_r      awa.ready_entries;
    v_cursor bigint;
    v_b      record;
    v_state  awa.job_state;
    v_res    awa.finalize_result;
    v_parked awa.finalize_result;
BEGIN
    PERFORM awa._require_read_committed('awa.cancel_job');
    IF p_job_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id must not be null' USING ERRCODE = 'AW010';
    END IF;

    -- The parked row before the backlog: a resolution that holds it may send
    -- the job to the backlog (retry), which the next statement then sees.
    v_res := awa._cancel_parked(p_job_id, v_reason, v_now);
    IF v_res.job_id IS NOT NULL THEN
        RETURN NEXT v_res;
        RETURN;
    END IF;

    WITH d AS (DELETE FROM awa.deferred_jobs WHERE job_id = p_job_id RETURNING *)
    INSERT INTO awa.done_entries (
        ready_slot, job_id, run_lease, state, attempt, max_attempts, priority, queue, kind, args,
        tags, metadata, errors, created_at, run_at, finalized_at)
    SELECT awa._current_slot('queue'), d.job_id, d.run_lease, 'cancelled', d.attempt, d.max_attempts,
           d.priority, d.queue, d.kind, d.args, d.tags, d.metadata,
           coalesce(d.errors, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
               'attempt', d.attempt, 'at', v_now, 'error', v_reason)),
           d.created_at, d.run_at, v_now
    FROM d
    RETURNING run_lease INTO v_lease;
    IF FOUND THEN
        RETURN QUERY SELECT p_job_id, v_lease, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state;
        RETURN;
    END IF;

    -- The cursor ring before the queue ring, the order claims and prune take
    -- them in (docs/storage.md, "Locks"): this call reads the cursor after the
    -- ready rows.
    LOCK TABLE awa.cursor_marks IN ACCESS SHARE MODE;
    -- The job's newest ready row, in either plane (awa._ready_by_id): the
    -- highest run_lease, and of two with the same run_lease the one not
    -- tombstoned (a job cancelled while available and then retried by
    -- awa.retry_job has both: the retry keeps run_lease).
    SELECT * INTO v_r FROM awa._ready_by_id(p_job_id) r
    ORDER BY r.run_lease DESC,
             EXISTS (SELECT 1 FROM awa.ready_tombstones t
                     WHERE t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq AND t.ready_slot = r.ready_slot)
    LIMIT 1;
    IF FOUND THEN
        PERFORM pg_advisory_xact_lock(awa._lock_key('lane_claim'), v_r.lane_id);
        SELECT c.claim_seq INTO v_cursor FROM awa.claim_cursors c WHERE c.lane_id = v_r.lane_id;
        IF v_r.lane_seq > v_cursor AND NOT EXISTS (
               SELECT 1 FROM awa.ready_tombstones t
               WHERE t.lane_id = v_r.lane_id AND t.lane_seq = v_r.lane_seq AND t.ready_slot = v_r.ready_slot) THEN
            INSERT INTO awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
            VALUES (v_r.ready_slot, v_r.lane_id, v_r.lane_seq, v_r.job_id, v_now);
            INSERT INTO awa.done_entries (
                ready_slot, job_id, run_lease, state, attempt, max_attempts, priority, queue, kind, args,
                tags, metadata, errors, created_at, run_at, finalized_at)
            VALUES (v_r.ready_slot, v_r.job_id, v_r.run_lease, 'cancelled', v_r.attempt, v_r.max_attempts,
                    v_r.priority, v_r.queue, v_r.kind, v_r.args, v_r.tags, v_r.metadata,
                    coalesce(v_r.errors, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
                        'attempt', v_r.attempt, 'at', v_now, 'error', v_reason)),
                    v_r.created_at, v_r.run_at, v_now);
            RETURN QUERY SELECT p_job_id, v_r.run_lease, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state;
            RETURN;
        END IF;

        -- Claimed: find its attempt (the claim of this ready row) if still open.
        SELECT o.issued_slot AS claim_slot, o.receipt_id, o.run_lease
        INTO v_b
        FROM awa._open_receipts o
        WHERE o.ready_slot = v_r.ready_slot AND o.job_id = p_job_id AND o.lane_seq = v_r.lane_seq
        LIMIT 1;
        IF FOUND THEN
            SELECT * INTO v_res FROM awa._finalize('cancel', 'cancelled', ARRAY[p_job_id], ARRAY[v_b.run_lease],
                                                   ARRAY[v_b.claim_slot], ARRAY[v_b.receipt_id], ARRAY[v_reason],
                                                   NULL, v_now);
            IF v_res.outcome = 'applied' THEN
                PERFORM pg_notify('awa:', p_job_id || ':' || v_b.run_lease);
            ELSE
                -- Closed by a park that held the attempt's lock: its parked
                -- row is committed now, and is cancelled as above.
                v_parked := awa._cancel_parked(p_job_id, v_reason, v_now);
                IF v_parked.job_id IS NOT NULL THEN
                    v_res := v_parked;
                END IF;
            END IF;
            RETURN NEXT v_res;
            RETURN;
        END IF;
    END IF;

    -- Its attempt closed while this call looked: parked meanwhile, the parked
    -- job is cancelled; gone on otherwise (retried, resumed, rescued), the
    -- cancel lost that race, as to a finalizer (stale).
    IF v_r.job_id IS NOT NULL THEN
        v_res := awa._cancel_parked(p_job_id, v_reason, v_now);
        IF v_res.job_id IS NOT NULL THEN
            RETURN NEXT v_res;
            RETURN;
        END IF;
    END IF;
    v_state := awa._job_state(p_job_id);
    IF v_r.job_id IS NOT NULL AND v_state NOT IN ('completed', 'cancelled', 'failed') THEN
        RETURN QUERY SELECT p_job_id, v_r.run_lease, 'stale'::awa.finalize_outcome, NULL::awa.job_state;
        RETURN;
    END IF;
    IF v_state IS NOT NULL THEN
        RAISE EXCEPTION 'awa: job % is already %', p_job_id, v_state USING ERRCODE = 'AW021';
    END IF;
    RAISE EXCEPTION 'awa: job % not found', p_job_id USING ERRCODE = 'AW020';
END;
$$;
