-- awa.set_progress(job_id, run_lease, claim_slot, receipt_id, progress, now):
-- records progress as the job's checkpoint, guarded like a finalizer: applied
-- (state 'running') only while the attempt (job_id, run_lease) with that
-- receipt is open; otherwise 'stale' and nothing is written. The attempt's
-- first write escalates it: one awa.leases row in the current lease slot;
-- every write upserts the job's awa.attempt_state row (HOT, in place). The
-- checkpoint survives retry, snooze, cancel, fail and rescue, for the next
-- attempt to read (awa.job_progress); complete deletes it. docs/storage.md,
-- "Attempt leases".
-- Locks: awa._attempt_guard's (the attempt's claim_batch lock, as every
-- closer's, then the claim ring's share locks): a closer of the attempt and
-- this write serialize, so the write lands while the attempt is open, or is
-- stale.
-- Errors: AW010 a NULL id or progress, progress over 65536 bytes as text.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by workers (the Go driver's JobRow.SetProgress) and any SQL worker.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.set_progress(
    p_job_id     bigint,
    p_run_lease  bigint,
    p_claim_slot int,
    p_receipt_id bigint,
    p_progress   jsonb,
    p_now        timestamptz DEFAULT NULL
)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_now, now());
    v_had  bigint;
    v_size int;
BEGIN
    PERFORM awa._require_read_committed('awa.set_progress');
    IF p_job_id IS NULL OR p_run_lease IS NULL OR p_claim_slot IS NULL OR p_receipt_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id, run_lease, claim_slot and receipt_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    IF p_progress IS NULL THEN
        RAISE EXCEPTION 'awa: progress must not be null' USING ERRCODE = 'AW010';
    END IF;
    v_size := octet_length(p_progress::text);
    IF v_size > 65536 THEN
        RAISE EXCEPTION 'awa: progress must be at most 65536 bytes as text, got %', v_size USING ERRCODE = 'AW010';
    END IF;

    IF NOT awa._attempt_guard(p_job_id, p_run_lease, p_claim_slot, p_receipt_id) THEN
        RETURN QUERY SELECT p_job_id, p_run_lease, 'stale'::awa.finalize_outcome, NULL::awa.job_state;
        RETURN;
    END IF;

    SELECT s.run_lease INTO v_had FROM awa.attempt_state s WHERE s.job_id = p_job_id;
    IF v_had IS DISTINCT FROM p_run_lease THEN
        PERFORM awa._escalate_attempt(p_job_id, p_run_lease, p_claim_slot, p_receipt_id, v_now);
    END IF;
    INSERT INTO awa.attempt_state AS s (job_id, run_lease, progress, updated_at)
    VALUES (p_job_id, p_run_lease, p_progress, v_now)
    ON CONFLICT (job_id) DO UPDATE
        SET run_lease = excluded.run_lease, progress = excluded.progress, updated_at = excluded.updated_at;

    RETURN QUERY SELECT p_job_id, p_run_lease, 'applied'::awa.finalize_outcome, 'running'::awa.job_state;
END;
$$;
