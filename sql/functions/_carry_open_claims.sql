-- awa._carry_open_claims(from_slot, to_slot, now): copies the claim batches of
-- claim slot from_slot that still hold an open receipt into slot to_slot, with
-- one claim_closures row per batch (outcome 'carried') holding the
-- receipts of that batch already closed in from_slot, so those stay closed.
-- Every other column is kept (batch_id, issued_slot, ready_slot, claimed_at,
-- instance_id, deadline_at, the items): receipts keep their identity
-- (issued_slot, receipt_id), finalizers find the batch by id (awa._close_claims),
-- and both rescues still see its age and deadline. Returns how many batches
-- were copied. See docs/storage.md, "Long attempts".
-- Locks: none of its own. The caller (awa.prune_ring) holds ACCESS EXCLUSIVE on
-- from_slot's children, so no closer reads or writes them meanwhile, and the
-- ring try-lock, so to_slot stays the current slot; from_slot is truncated in
-- the same transaction.
CREATE FUNCTION awa._carry_open_claims(p_from int, p_to int, p_now timestamptz)
RETURNS int
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    v_n int;
BEGIN
    WITH open AS (
        SELECT b.* FROM awa.claim_batches b
        WHERE b.claim_slot = p_from AND NOT awa._claim_batch_closed(p_from, b.batch_id, cardinality(b.job_ids))
    ), copied AS (
        INSERT INTO awa.claim_batches (
            claim_slot, batch_id, issued_slot, ready_slot, queue, claimed_at, instance_id, deadline_at,
            job_ids, run_leases, lane_ids, lane_seqs)
        SELECT p_to, o.batch_id, o.issued_slot, o.ready_slot, o.queue, o.claimed_at, o.instance_id, o.deadline_at,
               o.job_ids, o.run_leases, o.lane_ids, o.lane_seqs
        FROM open o
        RETURNING 1
    ), closed AS (
        INSERT INTO awa.claim_closures (claim_slot, queue, outcome, closed_at, receipts)
        SELECT p_to, o.queue, 'carried', p_now, x.receipts
        FROM open o
        CROSS JOIN LATERAL (
            SELECT range_agg(c.receipts * int8multirange(awa._batch_receipts(o.batch_id, 1024))) AS receipts
            FROM awa.claim_closures c
            WHERE c.claim_slot = p_from AND c.receipts && awa._batch_receipts(o.batch_id, 1024)) AS x
        WHERE x.receipts IS NOT NULL AND NOT isempty(x.receipts)
        RETURNING 1
    )
    SELECT count(*) INTO v_n FROM copied;
    RETURN v_n;
END;
$$;
