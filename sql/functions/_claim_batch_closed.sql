-- awa._claim_batch_closed(claim_slot, batch_id, size): whether every receipt of a
-- claim batch is covered by closure evidence in its claim slot. Exact: the
-- batch's receipt range must lie inside the union of the closures that
-- overlap it (GiST-indexed). Read-only. Called by the prune proofs and both
-- rescues (awa.rescue_expired_deadlines, awa.rescue_stale_claims).
CREATE FUNCTION awa._claim_batch_closed(p_claim_slot int, p_batch_id bigint, p_size int)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT coalesce(
        int8multirange(awa._batch_receipts(p_batch_id, p_size)) <@ range_agg(c.receipts),
        false)
    FROM awa.claim_closures c
    WHERE c.claim_slot = p_claim_slot
      AND c.receipts && awa._batch_receipts(p_batch_id, p_size)
$$;
