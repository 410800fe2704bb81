-- awa.cancel_jobs(job_ids, run_leases, claim_slots, receipt_ids, reasons, now):
-- a worker cancels the claimed attempts it holds: each job ends cancelled,
-- with reasons[i] (when not NULL) appended to its errors. Stale items are
-- reported and change nothing. To cancel a job by id in any state, an operator
-- uses awa.cancel_job. Errors: AW010 (see awa._finalize).
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing;
-- awa._finalize checks first, so this body stays one SELECT).
-- Signature as the other finalizers' on purpose: one public function per verb
-- is the contract; the shared body is awa._finalize.
CREATE FUNCTION awa.cancel_jobs(
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[],
    p_reasons     text[] DEFAULT NULL,
    p_now         timestamptz DEFAULT NULL
)
RETURNS SETOF awa.finalize_result
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._finalize('cancel', 'cancelled', p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids,
                                p_reasons, NULL, p_now)
$$;
