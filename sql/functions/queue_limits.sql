-- awa.queue_limits(queue): the flow-control options (rate limit, max_depth,
-- per-key concurrency) of every queue that has one, or of the given queue
-- only (no row when it has none), by queue name. Read-only: one read of
-- awa.queue_options, no lock past the call.
-- Errors: AW002 a queue name no queue can have (NULL: every queue).
-- Called by operators (awa queues list, Driver.QueueLimits).
CREATE FUNCTION awa.queue_limits(p_queue text DEFAULT NULL)
RETURNS SETOF awa.queue_limit
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_queue IS NOT NULL THEN
        PERFORM awa._require_queue_name(p_queue);
    END IF;
    RETURN QUERY
    SELECT o.queue, o.rate_per_second, o.rate_burst, o.max_depth, o.concurrency_key, o.concurrency_limit,
           o.concurrency_limits
    FROM awa.queue_options o
    WHERE (p_queue IS NULL OR o.queue = p_queue)
      AND num_nonnulls(o.rate_per_second, o.max_depth, o.concurrency_key) > 0
    ORDER BY o.queue;
END;
$$;
