-- awa._ring_tables(ring): the partitioned parents of a ring, in lock order.
-- The claim marks come first: claims and producers read them (the cursor)
-- before the ready rows, so prune takes a slot's locks in their order.
-- Immutable; used by install, rotate and prune. Unknown ring: empty array.
CREATE FUNCTION awa._ring_tables(p_ring text)
RETURNS text[]
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE p_ring
        WHEN 'queue' THEN ARRAY['ready_claim_marks', 'ready_entries', 'ready_tombstones', 'done_entries',
                                 'receipt_completion_batches']
        WHEN 'claim' THEN ARRAY['lease_claim_batches', 'lease_claim_closures']
        WHEN 'lease' THEN ARRAY['leases']
        ELSE ARRAY[]::text[]
    END
$$;
