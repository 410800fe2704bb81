-- awa._ring_slot_count(ring): the ring's slot count (awa.ring_config).
-- Errors: AW010 unknown ring (NULL included). Read-only. Called by
-- awa.rotate_ring and awa.prune_ring.
CREATE FUNCTION awa._ring_slot_count(p_ring text)
RETURNS int
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_slots int;
BEGIN
    SELECT c.slot_count INTO v_slots FROM awa.ring_config c WHERE c.ring = p_ring;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'awa: unknown ring %', coalesce(quote_literal(p_ring), 'null') USING ERRCODE = 'AW010';
    END IF;
    RETURN v_slots;
END;
$$;
