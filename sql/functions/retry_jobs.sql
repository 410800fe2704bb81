-- awa.retry_jobs(job_ids, run_leases, claim_slots, receipt_ids, errors, retry_at, now):
-- records a failed attempt of each claimed job. The error is appended to the
-- job's errors; the job becomes retryable at retry_at[i] (or, when retry_at or
-- its element is NULL, after the backoff of attempt^4 + 1 seconds plus up to
-- 10% jitter, capped at a day) and is promoted when due. A job whose attempts are
-- exhausted (attempt >= max_attempts) fails instead, into the DLQ when its
-- queue has the DLQ on. Stale items are reported and change nothing.
-- Errors: AW010 (see awa._finalize). Called by workers for handler errors.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing;
-- awa._finalize checks first, so this body stays one SELECT).
-- Signature as the other finalizers' on purpose: one public function per verb
-- is the contract; the shared body is awa._finalize.
CREATE FUNCTION awa.retry_jobs(
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[],
    p_errors      text[],
    p_retry_at    timestamptz[] DEFAULT NULL,
    p_now         timestamptz DEFAULT NULL
)
RETURNS SETOF awa.finalize_result
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._finalize('retry', 'retried', p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids,
                                p_errors, p_retry_at, p_now)
$$;
