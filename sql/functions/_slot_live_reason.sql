-- awa._slot_live_reason(ring, slot, carry, carry_open): why the slot must not be truncated
-- yet, or NULL when nothing live remains in it. The proof prune takes before it
-- locks the slot (under the locks, awa._slot_fingerprint shows nothing that
-- would change it came).
--   queue: a ready row above its lane's claim cursor that no tombstone spends
--          (an available job; not counted when carry is true, because prune
--          moves those out with awa._carry_ready), or an attempt drawn from
--          this ready slot whose receipt has no closure (a running job; not
--          counted when carry_open is true: awa._carry_running moves it)
--   claim: a receipt in this claim slot without closure evidence (not counted
--          when carry_open is true: awa._carry_open_claims moves it)
--   lease: a lease whose attempt is still open (awa._attempt_open; not
--          counted when carry_open is true: awa._carry_live_leases moves it)
-- The cursor is read from awa.claim_cursors in the proof's own statement.
-- Read-only. Called by awa.prune_ring.
-- Preamble as the other prune probes' on purpose (STABLE, sorts and JIT
-- off): SQL cannot share a function's attributes.
CREATE FUNCTION awa._slot_live_reason(p_ring text, p_slot int, p_carry boolean DEFAULT false,
                                      p_carry_open boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql
STABLE
-- As in awa.claim_ready_runtime: the "first row above the cursor" probes must
-- walk the lane index in order (O(1) per lane), never fetch and sort a slot.
SET enable_sort = off
SET jit = off
AS $$
DECLARE
    v_detail text;
BEGIN
    IF p_ring = 'queue' AND p_carry IS NOT TRUE THEN
        SELECT format('ready slot %s holds an available job (job %s, lane %s position %s)',
                      p_slot, r.job_id, r.lane_id, r.lane_seq)
        INTO v_detail
        FROM awa.claim_cursors h
        CROSS JOIN LATERAL (
            SELECT r.job_id, r.lane_id, r.lane_seq FROM awa.ready_entries r
            WHERE r.ready_slot = p_slot AND r.lane_id = h.lane_id AND r.lane_seq > h.claim_seq
              AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                              WHERE t.ready_slot = p_slot AND t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq)
            ORDER BY r.lane_seq
            LIMIT 1) AS r
        LIMIT 1;
        IF v_detail IS NOT NULL THEN
            RETURN v_detail;
        END IF;
    END IF;
    IF p_ring IN ('queue', 'claim', 'lease') AND p_carry_open THEN
        RETURN NULL;
    ELSIF p_ring = 'queue' THEN
        -- This and the claim branch ask the same of different batches (drawn
        -- from the ready slot, held in the claim slot): two statements, so
        -- each keeps its own index or partition pruning.
        SELECT format('ready slot %s has a running job (claim batch %s in claim slot %s is not closed)',
                      p_slot, b.batch_id, b.claim_slot)
        INTO v_detail
        FROM awa.claim_batches b
        WHERE b.ready_slot = p_slot
          AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids))
        LIMIT 1;
        RETURN v_detail;
    ELSIF p_ring = 'claim' THEN
        SELECT format('claim slot %s has an open claim (batch %s of queue %s claimed at %s)',
                      p_slot, b.batch_id, b.queue, b.claimed_at)
        INTO v_detail
        FROM awa.claim_batches b
        WHERE b.claim_slot = p_slot
          AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids))
        LIMIT 1;
        RETURN v_detail;
    ELSIF p_ring = 'lease' THEN
        SELECT format('lease slot %s holds the lease of job %s', p_slot, l.job_id)
        INTO v_detail
        FROM awa.leases l
        WHERE l.lease_slot = p_slot AND awa._attempt_open(l.job_id, l.run_lease, l.claim_slot, l.receipt_id)
        LIMIT 1;
        RETURN v_detail;
    END IF;
    RAISE EXCEPTION 'awa: unknown ring %', quote_literal(p_ring) USING ERRCODE = 'AW010';
END;
$$;
