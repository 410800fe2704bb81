-- awa._ring_tables(ring): the partitioned parents of a ring, in the order
-- prune locks a slot's children (the order in which claims, cancels,
-- producers and finalizers reach them; docs/storage.md, "Locks").
-- Immutable; used by install, rotate and prune. Unknown ring: empty array.
CREATE FUNCTION awa._ring_tables(p_ring text)
RETURNS text[]
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE p_ring
        WHEN 'queue' THEN ARRAY['ready_entries', 'ready_batches', 'ready_tombstones', 'done_entries', 'done_completions']
        WHEN 'claim' THEN ARRAY['claim_batches', 'claim_closures']
        WHEN 'lease' THEN ARRAY['leases']
        WHEN 'cursor' THEN ARRAY['cursor_marks']
        ELSE ARRAY[]::text[]
    END
$$;
