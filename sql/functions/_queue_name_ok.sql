-- awa._queue_name_ok(queue): whether queue is a valid queue name: 1 to 50
-- characters of [A-Za-z0-9_.:-] (it becomes part of the NOTIFY channel
-- "awa:<queue>"). NULL is not valid. Pure. The one definition of the rule,
-- used by insert, configure_queue and listen_queues.
CREATE FUNCTION awa._queue_name_ok(p_queue text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT coalesce(length(p_queue) BETWEEN 1 AND 50 AND p_queue ~ '^[A-Za-z0-9_.:-]+$', false)
$$;
