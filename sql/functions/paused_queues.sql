-- awa.paused_queues(): the paused queues, oldest pause first. Read-only.
-- Called by operators (awa queues list, Driver.PausedQueues).
CREATE FUNCTION awa.paused_queues()
RETURNS SETOF awa.queue_pause_state
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p.queue, true, p.paused_at FROM awa.queue_pauses p ORDER BY p.paused_at, p.queue
$$;
