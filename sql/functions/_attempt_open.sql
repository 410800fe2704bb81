-- awa._attempt_open(job_id, run_lease, claim_slot, receipt_id): whether the
-- attempt is open: its receipt (claim_slot = the slot it was issued in) names
-- a claim batch item holding exactly (job_id, run_lease), and no closure
-- covers the receipt. The single-attempt form of the guard awa._close_claims
-- applies to a batch of items (the batch found by id and issued_slot,
-- wherever prune has carried it since).
-- Read-only, with the caller's snapshot: a caller that decides a write on
-- the answer first locks the claim ring's tables in a statement of its own
-- (awa.set_progress, awa._carry_live_leases), since a snapshot older than a
-- claim-ring prune's TRUNCATE sees the carried batch nowhere. The lease-ring
-- proof (awa._slot_live_reason) reads it without, as a hint only.
CREATE FUNCTION awa._attempt_open(p_job_id bigint, p_run_lease bigint, p_claim_slot int, p_receipt_id bigint)
RETURNS boolean
-- PL/pgSQL, not SQL: the query's plan is cached for the session; as a SQL
-- function that the planner does not inline, it was planned again at every
-- call (about 1 ms here, most of a progress write's time).
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN EXISTS (
        SELECT 1 FROM awa.claim_batches b
        WHERE b.batch_id = awa._receipt_batch_id(p_receipt_id) AND b.issued_slot = p_claim_slot
          AND b.job_ids[awa._receipt_item(p_receipt_id)] = p_job_id
          AND b.run_leases[awa._receipt_item(p_receipt_id)] = p_run_lease
          AND NOT EXISTS (SELECT 1 FROM awa.claim_closures c
                          WHERE c.claim_slot = b.claim_slot AND c.receipts @> p_receipt_id));
END;
$$;
