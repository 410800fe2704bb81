-- awa.register_callback(job_id, run_lease, claim_slot, receipt_id, timeout,
-- now): an open attempt registers a callback and gets its token, to hand to
-- the external system that will resolve it (awa.complete_external,
-- fail_external, retry_external, resume_external). The token is random and
-- belongs to this attempt only: once the attempt ends, or the job registers
-- again, it resolves nothing. The attempt escalates to a lease
-- (awa._escalate_attempt) and shows as waiting_external until the callback is
-- resolved. Then the handler either parks the job (awa.park_jobs, its worker
-- slot freed) or waits for a resume (awa.take_callback_result). At timeout_at
-- = now + timeout, awa.rescue_expired_callbacks retries the attempt.
-- Returns one row: applied with the token, or stale (the attempt is not open;
-- nothing written). docs/storage.md, "Callbacks".
-- Locks: awa._attempt_guard's (a closer of the attempt waits, or wins first).
-- Errors: AW010 a NULL id, timeout not between 1 second and 365 days.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by workers (the Go driver's JobRow.RegisterCallback) and any SQL worker.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.register_callback(
    p_job_id     bigint,
    p_run_lease  bigint,
    p_claim_slot int,
    p_receipt_id bigint,
    p_timeout    interval,
    p_now        timestamptz DEFAULT NULL
)
RETURNS SETOF awa.callback_registration
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now timestamptz := coalesce(p_now, now());
    v_id  uuid := gen_random_uuid();
BEGIN
    PERFORM awa._require_read_committed('awa.register_callback');
    IF p_job_id IS NULL OR p_run_lease IS NULL OR p_claim_slot IS NULL OR p_receipt_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id, run_lease, claim_slot and receipt_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    PERFORM awa._require_between('timeout', p_timeout, interval '1 second', interval '365 days');

    IF NOT awa._attempt_guard(p_job_id, p_run_lease, p_claim_slot, p_receipt_id) THEN
        RETURN QUERY SELECT p_job_id, p_run_lease, 'stale'::awa.finalize_outcome, NULL::uuid, NULL::timestamptz;
        RETURN;
    END IF;

    PERFORM awa._escalate_attempt(p_job_id, p_run_lease, p_claim_slot, p_receipt_id, v_now);
    -- A new registration supersedes the job's earlier one (of this attempt or
    -- of a closed one): its token resolves nothing any more.
    DELETE FROM awa.callbacks c WHERE c.job_id = p_job_id;
    INSERT INTO awa.callbacks (callback_id, job_id, run_lease, claim_slot, receipt_id, queue, registered_at, timeout_at)
    SELECT v_id, p_job_id, p_run_lease, p_claim_slot, p_receipt_id, b.queue, v_now, v_now + p_timeout
    FROM awa.claim_batches b
    WHERE b.batch_id = awa._receipt_batch_id(p_receipt_id) AND b.issued_slot = p_claim_slot
    LIMIT 1;

    RETURN QUERY SELECT p_job_id, p_run_lease, 'applied'::awa.finalize_outcome, v_id, v_now + p_timeout;
END;
$$;
