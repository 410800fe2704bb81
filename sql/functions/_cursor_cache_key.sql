-- awa._cursor_cache_key(queue): the name of the session setting that caches,
-- per lane of a queue, a position at or below which the lane holds nothing
-- unconsumed: its cursor as a claim saw it, or a tip a claim passed while the
-- lane's producer lock was free (value: queue|lane ids|bounds, as written by
-- awa.claim_ready_runtime). Keyed by the schema's oid, so a
-- reinstalled schema never reads a stale entry, and by one of 256 buckets of
-- the queue's hash, not the queue: PostgreSQL 15 sorts all of a session's
-- settings each time one is created (12 ms per new setting among 20,000
-- here), so a setting per queue made a session that works thousands of queues
-- slower with every queue. Queues sharing a bucket evict each other's entry;
-- the value names its queue, so a reader ignores another queue's entry (a
-- cache miss). Read-only.
-- Called by awa.claim_ready_runtime and awa.queue_pending.
CREATE FUNCTION awa._cursor_cache_key(p_queue text)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT 'awa.cursors_' || 'awa'::regnamespace::oid || '_' || (hashtext(p_queue) & 255)
$$;
