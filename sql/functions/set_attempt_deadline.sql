-- awa.set_attempt_deadline(job_id, run_lease, claim_slot, receipt_id,
-- deadline_at, now): gives the open attempt (job_id, run_lease) a deadline of
-- its own, which replaces its claim batch's deadline_at for this attempt,
-- later or earlier: awa.rescue_expired_deadlines closes the attempt once
-- deadline_at has passed, and not before, whatever the batch's says. Never
-- beyond the queue's cap: with a queue deadline_seconds, the deadline
-- recorded is at most claimed_at + deadline_seconds (the result says which).
-- A later call of the attempt replaces its deadline. Guarded like
-- awa.set_progress: applied (state running) only while the attempt is open,
-- else 'stale' and nothing written. The attempt's first mutable write
-- escalates it (awa._escalate_attempt); the deadline is a part of the job's
-- awa.attempt_state row, naming the attempt and its receipt, and goes with
-- it (docs/storage.md, "Attempt leases").
-- Locks: awa._attempt_guard's, then the attempt_state row: a closer and the
-- deadline rescue of the attempt serialize with this write.
-- Errors: AW010 a NULL id or deadline_at, deadline_at not after now.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by workers (the Go driver's JobRow.SetDeadline, and its runtime for
-- a job whose timeout outlasts its claim's deadline) and any SQL worker.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.set_attempt_deadline(
    p_job_id      bigint,
    p_run_lease   bigint,
    p_claim_slot  int,
    p_receipt_id  bigint,
    p_deadline_at timestamptz,
    p_now         timestamptz DEFAULT NULL
)
RETURNS SETOF awa.attempt_deadline
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now      timestamptz := coalesce(p_now, now());
    v_deadline timestamptz;
    v_state    awa.attempt_state;
BEGIN
    PERFORM awa._require_read_committed('awa.set_attempt_deadline');
    IF p_job_id IS NULL OR p_run_lease IS NULL OR p_claim_slot IS NULL OR p_receipt_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id, run_lease, claim_slot and receipt_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    IF p_deadline_at IS NULL THEN
        RAISE EXCEPTION 'awa: deadline_at must not be null' USING ERRCODE = 'AW010';
    END IF;
    IF p_deadline_at <= v_now THEN
        RAISE EXCEPTION 'awa: deadline_at must be after now (%), got %', v_now, p_deadline_at USING ERRCODE = 'AW010';
    END IF;

    IF NOT awa._attempt_guard(p_job_id, p_run_lease, p_claim_slot, p_receipt_id) THEN
        RETURN QUERY SELECT p_job_id, p_run_lease, 'stale'::awa.finalize_outcome, NULL::awa.job_state,
                            NULL::timestamptz;
        RETURN;
    END IF;

    -- least() ignores NULL: a queue without a deadline sets no cap.
    SELECT least(p_deadline_at, b.claimed_at + m.deadline) INTO v_deadline
    FROM awa.claim_batches b
    LEFT JOIN awa.queue_meta m ON m.queue = b.queue
    WHERE b.batch_id = awa._receipt_batch_id(p_receipt_id) AND b.issued_slot = p_claim_slot
    LIMIT 1;

    -- The row's run_lease (progress) or deadline_run_lease naming this
    -- attempt means it escalated already.
    SELECT * INTO v_state FROM awa.attempt_state s WHERE s.job_id = p_job_id;
    IF v_state.run_lease IS DISTINCT FROM p_run_lease AND v_state.deadline_run_lease IS DISTINCT FROM p_run_lease THEN
        PERFORM awa._escalate_attempt(p_job_id, p_run_lease, p_claim_slot, p_receipt_id, v_now);
    END IF;
    INSERT INTO awa.attempt_state AS s (job_id, run_lease, deadline_at, deadline_run_lease, deadline_claim_slot,
                                        deadline_receipt_id)
    VALUES (p_job_id, p_run_lease, v_deadline, p_run_lease, p_claim_slot, p_receipt_id)
    ON CONFLICT (job_id) DO UPDATE
        SET deadline_at = excluded.deadline_at, deadline_run_lease = excluded.deadline_run_lease,
            deadline_claim_slot = excluded.deadline_claim_slot, deadline_receipt_id = excluded.deadline_receipt_id;

    RETURN QUERY SELECT p_job_id, p_run_lease, 'applied'::awa.finalize_outcome, 'running'::awa.job_state, v_deadline;
END;
$$;
