-- awa.park_jobs(job_ids, run_leases, claim_slots, receipt_ids, now): the
-- handlers of claimed jobs wait for their callbacks without holding a worker:
-- each attempt is closed (closure outcome 'parked') and its job moves to
-- awa.external_waits, state waiting_external, until a callback resolves it or
-- its timeout passes (docs/storage.md, "Callbacks"). A callback resumed
-- before the park sends its job back to the queue at once instead. Stale
-- items are reported and change nothing.
-- Errors: AW010 (see awa._finalize); AW022 an open attempt that registered no
-- callback (awa.register_callback): the whole call is rolled back.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Signature as the other finalizers' on purpose: one public function per verb
-- is the contract; the shared body is awa._finalize.
CREATE FUNCTION awa.park_jobs(
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
    SELECT * FROM awa._finalize('park', 'parked', p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids,
                                NULL, NULL, p_now)
$$;
