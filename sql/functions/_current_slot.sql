-- awa._current_slot(ring): the ring's current slot, read from the rotation
-- ledger (its max-generation row, a backward primary-key scan). Read-only,
-- takes no lock. Called by every writer that appends into the current slot.
CREATE FUNCTION awa._current_slot(p_ring text)
RETURNS int
LANGUAGE sql
STABLE
AS $$
    SELECT slot FROM awa.ring_rotations WHERE ring = p_ring ORDER BY generation DESC LIMIT 1
$$;
