-- awa.release_leader_lease(name, holder): gives the lease up at once (a clean
-- stop), so another process can lead without waiting for the expiry. Only the
-- holder can release; returns the released lease row (none when not held).
-- Errors: AW010 name or holder NULL.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.release_leader_lease(p_name text, p_holder uuid)
RETURNS SETOF awa.leader_leases
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_name IS NULL OR p_holder IS NULL THEN
        RAISE EXCEPTION 'awa: lease name and holder must not be null' USING ERRCODE = 'AW010';
    END IF;
    RETURN QUERY DELETE FROM awa.leader_leases l WHERE l.name = p_name AND l.holder = p_holder RETURNING l.*;
END;
$$;
