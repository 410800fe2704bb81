-- awa.closed_attempts(job_ids, run_leases, claim_slots, receipt_ids): of the
-- attempts given (a process's running handlers), those no longer open:
-- cancelled by an operator, rescued, or finalized. The runtime's fallback for
-- cooperative cancel when a notification of awa.cancel_job is missed: one
-- call per heartbeat tick for all its handlers (docs/storage.md, "Every
-- attempt ends"). Read-only; one probe per item (awa._attempt_open).
-- Locks: ACCESS SHARE on the claim ring's tables before the check, as
-- awa.set_progress (a snapshot older than a prune's TRUNCATE would miss a
-- carried batch and call a live attempt closed), held to the end of the
-- caller's transaction: call it in autocommit.
-- Errors: AW010 an array NULL, or of another length than job_ids.
-- Called by the Go runtime's heartbeat and by SQL-only workers.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off): SQL cannot share it.
CREATE FUNCTION awa.closed_attempts(
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[]
)
RETURNS TABLE (job_id bigint, run_lease bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    IF p_job_ids IS NULL OR p_run_leases IS NULL OR p_claim_slots IS NULL OR p_receipt_ids IS NULL
       OR cardinality(p_run_leases) <> cardinality(p_job_ids) OR cardinality(p_claim_slots) <> cardinality(p_job_ids)
       OR cardinality(p_receipt_ids) <> cardinality(p_job_ids) THEN
        RAISE EXCEPTION 'awa: job_ids, run_leases, claim_slots and receipt_ids must be non-null arrays of one length'
            USING ERRCODE = 'AW010';
    END IF;
    LOCK TABLE awa.claim_batches, awa.claim_closures IN ACCESS SHARE MODE;
    RETURN QUERY
    SELECT a.job_id, a.run_lease
    FROM unnest(p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids) AS a (job_id, run_lease, claim_slot, receipt_id)
    WHERE NOT awa._attempt_open(a.job_id, a.run_lease, a.claim_slot, a.receipt_id);
END;
$$;
