-- awa._slot_live_reason(ring, slot, carry, carry_open): why the slot must not be truncated
-- yet, or NULL when nothing live remains in it: the detail of
-- awa._slot_blocker, which says what counts for each ring and argument. The
-- proof prune takes before it locks the slot (under the locks,
-- awa._slot_fingerprint shows nothing that would change it came).
-- Read-only. Errors: AW010 unknown ring. Called by awa.prune_ring.
CREATE FUNCTION awa._slot_live_reason(p_ring text, p_slot int, p_carry boolean DEFAULT false,
                                      p_carry_open boolean DEFAULT false)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT (awa._slot_blocker(p_ring, p_slot, p_carry, p_carry_open)).detail
$$;
