-- awa.complete_jobs(job_ids, run_leases, claim_slots, receipt_ids, now): marks
-- claimed jobs completed. Item i is (job_ids[i], run_leases[i]) with the receipt
-- (claim_slots[i], receipt_ids[i]) returned by awa.claim_ready_runtime.
-- Applied items get claim closure evidence and compact terminal history (one
-- row per ready slot and queue for the whole call, no per-job row); items whose
-- attempt was already closed (rescued, cancelled, finalized) are reported
-- 'stale' and change nothing. Errors: AW010 (see awa._finalize).
-- Locks: see awa._close_claims. Called by workers after successful handlers.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing;
-- awa._finalize checks first, so this body stays one SELECT).
-- Signature as the other finalizers' on purpose: one public function per verb
-- is the contract; the shared body is awa._finalize.
CREATE FUNCTION awa.complete_jobs(
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[],
    p_now         timestamptz DEFAULT NULL
)
RETURNS SETOF awa.finalize_result
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._finalize('complete', 'completed', p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids,
                                NULL, NULL, p_now)
$$;
