-- awa.heartbeat_instance(instance_id, now): registers a worker process or
-- refreshes its heartbeat. Claims made with this instance_id stay safe from
-- stale rescue while the heartbeat is fresh. One row per process, so the cost
-- does not grow with the jobs it runs. The heartbeat never moves backwards.
-- Errors: AW010 instance_id NULL. Called by each worker process on a ticker.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.heartbeat_instance(p_instance_id uuid, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.runtime_instances
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_instance_id IS NULL THEN
        RAISE EXCEPTION 'awa: instance_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    RETURN QUERY
    INSERT INTO awa.runtime_instances AS i (instance_id, started_at, heartbeat_at)
    VALUES (p_instance_id, coalesce(p_now, now()), coalesce(p_now, now()))
    ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = greatest(i.heartbeat_at, excluded.heartbeat_at)
    RETURNING i.*;
END;
$$;
