-- awa._escalate_attempt(job_id, run_lease, claim_slot, receipt_id, now): an
-- open attempt's first mutable state: appends its lease row (awa.leases) in
-- the current lease slot, unless the attempt has one. The caller has passed
-- awa._attempt_guard. docs/storage.md, "Attempt leases".
-- Called by awa.set_progress (at an attempt's first checkpoint) and
-- awa.register_callback.
CREATE FUNCTION awa._escalate_attempt(p_job_id bigint, p_run_lease bigint, p_claim_slot int, p_receipt_id bigint,
                                      p_now timestamptz)
RETURNS void
-- PL/pgSQL, not SQL: its INSERT's plan is cached for the session (a SQL
-- function's statement is planned again at every call: 1 to 4 ms here).
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO awa.leases (lease_slot, job_id, run_lease, claim_slot, receipt_id, queue, created_at)
    SELECT awa._current_slot('lease'), p_job_id, p_run_lease, p_claim_slot, p_receipt_id, b.queue, p_now
    FROM awa.claim_batches b
    WHERE b.batch_id = awa._receipt_batch_id(p_receipt_id) AND b.issued_slot = p_claim_slot
      AND NOT EXISTS (SELECT 1 FROM awa.leases l WHERE l.job_id = p_job_id AND l.run_lease = p_run_lease)
    LIMIT 1;
END;
$$;
