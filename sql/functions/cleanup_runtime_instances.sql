-- awa.cleanup_runtime_instances(older_than, now): deletes the rows of worker
-- processes whose heartbeat is older than older_than (stopped or crashed
-- processes) and returns them. Safe at any time: a claim whose process row is
-- gone is treated as stale by awa.rescue_stale_claims, exactly as a stale
-- heartbeat, so keep older_than well above the rescue staleness.
-- Errors: AW010 older_than below one minute.
-- Called by the maintenance leader.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.cleanup_runtime_instances(
    p_older_than interval DEFAULT interval '1 hour',
    p_now        timestamptz DEFAULT NULL
)
RETURNS SETOF awa.runtime_instances
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM awa._require_read_committed('awa.cleanup_runtime_instances');
    IF p_older_than IS NULL OR p_older_than < interval '1 minute' THEN
        RAISE EXCEPTION 'awa: older_than must be at least one minute, got %', coalesce(p_older_than::text, 'null')
            USING ERRCODE = 'AW010';
    END IF;
    RETURN QUERY
    DELETE FROM awa.runtime_instances i
    WHERE i.heartbeat_at < coalesce(p_now, now()) - p_older_than
    RETURNING i.*;
END;
$$;
