-- awa._carry_live_leases(from_slot, to_slot): copies the leases of lease slot
-- from_slot whose attempt is still open (awa._live_leases) into slot
-- to_slot, every column kept but lease_slot, so a long attempt's lease moves
-- forward instead of pinning its slot; closed attempts' leases go with the
-- TRUNCATE. Returns how many leases were copied. docs/storage.md, "Attempt
-- leases".
-- Locks: ACCESS SHARE on the claim ring's tables (all slots), before the
-- statement that decides, so a claim-ring prune's carry and TRUNCATE is seen
-- whole (TRUNCATE is not MVCC-safe). The caller (awa.prune_ring) holds ACCESS
-- EXCLUSIVE on from_slot's child and the ring try-lock, so to_slot stays the
-- current slot; from_slot is truncated in the same transaction. An attempt
-- closed after the copy leaves a dead lease in to_slot, reclaimed with that
-- slot.
-- Preamble and count as awa._carry_open_claims' on purpose (a sibling carry):
-- SQL cannot share a function's attributes.
CREATE FUNCTION awa._carry_live_leases(p_from int, p_to int)
RETURNS int
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    v_n int;
BEGIN
    LOCK TABLE awa.claim_batches, awa.claim_closures IN ACCESS SHARE MODE;
    INSERT INTO awa.leases (lease_slot, job_id, run_lease, claim_slot, receipt_id, queue, created_at)
    SELECT p_to, l.job_id, l.run_lease, l.claim_slot, l.receipt_id, l.queue, l.created_at
    FROM awa._live_leases l
    WHERE l.lease_slot = p_from
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    RETURN v_n;
END;
$$;
