-- awa.acquire_leader_lease(name, holder, ttl, now): takes the lease `name` for
-- holder, or renews it when holder already has it, for ttl. Of several callers
-- racing for a free or expired lease exactly one wins; the others see the
-- winner. One conditional upsert on the lease row (a row lock, no advisory or
-- session lock), so it works through transaction-mode poolers.
-- Returns one row: is_leader, the current holder and its expiry.
-- Errors: AW010 name or holder NULL, ttl not between 1 second and 1 hour.
-- Called by every worker process's maintenance elector on a ticker.
CREATE FUNCTION awa.acquire_leader_lease(
    p_name   text,
    p_holder uuid,
    p_ttl    interval,
    p_now    timestamptz DEFAULT NULL
)
RETURNS SETOF awa.leader_outcome
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now timestamptz := coalesce(p_now, clock_timestamp());
    v_row awa.leader_leases;
BEGIN
    IF p_name IS NULL OR p_holder IS NULL THEN
        RAISE EXCEPTION 'awa: lease name and holder must not be null' USING ERRCODE = 'AW010';
    END IF;
    PERFORM awa._require_between('lease ttl', p_ttl, interval '1 second', interval '1 hour',
                                 p_range => '1 second and 1 hour');

    INSERT INTO awa.leader_leases AS l (name, holder, acquired_at, expires_at)
    VALUES (p_name, p_holder, v_now, v_now + p_ttl)
    ON CONFLICT (name) DO UPDATE
        SET holder = excluded.holder,
            acquired_at = CASE WHEN l.holder = excluded.holder THEN l.acquired_at ELSE excluded.acquired_at END,
            expires_at = excluded.expires_at
        WHERE l.holder = excluded.holder OR l.expires_at <= v_now
    RETURNING l.* INTO v_row;

    IF NOT FOUND THEN
        SELECT * INTO v_row FROM awa.leader_leases WHERE name = p_name;
    END IF;

    RETURN QUERY SELECT v_row.name, v_row.holder, v_row.holder = p_holder, v_row.expires_at;
END;
$$;
