-- awa.fail_jobs(job_ids, run_leases, claim_slots, receipt_ids, errors, now):
-- fails claimed jobs terminally whatever attempts remain (a handler's
-- terminal error, an unknown kind). The error is appended; the job goes to the
-- DLQ when its queue has the DLQ on, else it ends failed. Stale items are
-- reported and change nothing. Errors: AW010 (see awa._finalize).
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing;
-- awa._finalize checks first, so this body stays one SELECT).
-- Signature as the other finalizers' on purpose: one public function per verb
-- is the contract; the shared body is awa._finalize.
CREATE FUNCTION awa.fail_jobs(
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[],
    p_errors      text[],
    p_now         timestamptz DEFAULT NULL
)
RETURNS SETOF awa.finalize_result
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._finalize('fail', 'failed', p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids,
                                p_errors, NULL, p_now)
$$;
