-- awa._slot_has_rows(ring, slot): whether any child table of the ring's slot
-- holds a row. Read-only; one cheap EXISTS per child. Called by rotate and prune.
CREATE FUNCTION awa._slot_has_rows(p_ring text, p_slot int)
RETURNS boolean
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_parent text;
    v_found  boolean;
BEGIN
    FOREACH v_parent IN ARRAY awa._ring_tables(p_ring) LOOP
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM awa.%I)', v_parent || '_' || p_slot) INTO v_found;
        IF v_found THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END;
$$;
