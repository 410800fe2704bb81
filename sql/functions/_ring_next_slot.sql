-- awa._ring_next_slot(ring, slot, step): the first slot after slot (step 1)
-- or before it (step -1), going round the ring, that is not held
-- (awa.ring_held_slots); NULL when every other slot is held. With step 1
-- from the current slot: the slot the next rotation takes; with step -1: the
-- newest sealed slot. Read-only, takes no lock. Called by awa.rotate_ring,
-- awa.prune_ring and awa.storage_status.
CREATE FUNCTION awa._ring_next_slot(p_ring text, p_slot int, p_step int DEFAULT 1)
RETURNS int
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_slots int := awa._ring_slot_count(p_ring);
    v_next  int;
BEGIN
    FOR i IN 1 .. v_slots - 1 LOOP
        v_next := ((p_slot + p_step * i) % v_slots + v_slots) % v_slots;
        IF NOT EXISTS (SELECT 1 FROM awa.ring_held_slots h WHERE h.ring = p_ring AND h.slot = v_next) THEN
            RETURN v_next;
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;
