-- awa.snooze_jobs(job_ids, run_leases, claim_slots, receipt_ids, run_at, now):
-- puts claimed jobs back as scheduled until run_at[i] without counting the
-- attempt (attempt stays, run_lease keeps its new value so the snoozed attempt
-- cannot finalize again). Stale items are reported and change nothing.
-- Errors: AW010 (see awa._finalize; every run_at is required).
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing;
-- awa._finalize checks first, so this body stays one SELECT).
-- Signature as the other finalizers' on purpose: one public function per verb
-- is the contract; the shared body is awa._finalize.
CREATE FUNCTION awa.snooze_jobs(
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[],
    p_run_at      timestamptz[],
    p_now         timestamptz DEFAULT NULL
)
RETURNS SETOF awa.finalize_result
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._finalize('snooze', 'snoozed', p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids,
                                NULL, p_run_at, p_now)
$$;
