-- awa._ring_tables(ring): the partitioned parents of a ring, in lock order.
-- Immutable; used by install, rotate and prune. Unknown ring: empty array.
CREATE FUNCTION awa._ring_tables(p_ring text)
RETURNS text[]
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE p_ring
        WHEN 'queue' THEN ARRAY['ready_entries', 'ready_tombstones', 'done_entries', 'receipt_completion_batches',
                                 'ready_claim_marks']
        WHEN 'claim' THEN ARRAY['lease_claim_batches', 'lease_claim_closures']
        WHEN 'lease' THEN ARRAY['leases']
        ELSE ARRAY[]::text[]
    END
$$;
