-- awa._attempt_guard(job_id, run_lease, claim_slot, receipt_id, try): the guard of
-- every write to an open attempt that does not close it (progress, callback
-- registration, a resume, taking a resume's result): takes the attempt's
-- claim_batch lock (the lock every closer takes, awa._close_claims), then
-- ACCESS SHARE on the claim ring's tables (all slots), then answers
-- awa._attempt_open in a statement of its own. True: the attempt is open and
-- stays open until the caller's transaction ends (a closer waits for the
-- lock). False: it is closed; the caller writes nothing. With try, the
-- claim_batch lock is only tried: NULL when another session holds it (the
-- maintenance leader's callback rescue, which must not wait for a worker).
-- The share locks come before the check's snapshot because TRUNCATE is not
-- MVCC-safe: a snapshot older than a claim-ring prune that carried the batch
-- sees it nowhere (docs/storage.md, "Attempt leases").
CREATE FUNCTION awa._attempt_guard(p_job_id bigint, p_run_lease bigint, p_claim_slot int, p_receipt_id bigint,
                                   p_try boolean DEFAULT false)
RETURNS boolean
LANGUAGE plpgsql
AS $$
BEGIN
    IF p_try THEN
        IF NOT pg_try_advisory_xact_lock(awa._lock_key('claim_batch'),
                                         awa._lock_claim_batch_id(awa._receipt_batch_id(p_receipt_id))) THEN
            RETURN NULL;
        END IF;
    ELSE
        PERFORM pg_advisory_xact_lock(awa._lock_key('claim_batch'),
                                      awa._lock_claim_batch_id(awa._receipt_batch_id(p_receipt_id)));
    END IF;
    LOCK TABLE awa.claim_batches, awa.claim_closures IN ACCESS SHARE MODE;
    RETURN awa._attempt_open(p_job_id, p_run_lease, p_claim_slot, p_receipt_id);
END;
$$;
