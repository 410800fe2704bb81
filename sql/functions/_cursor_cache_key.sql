-- awa._cursor_cache_key(queue): the name of the session setting that caches,
-- per lane of a queue, a position at or below which the lane holds nothing
-- unconsumed: its cursor as a claim saw it, or a tip a claim passed while the
-- lane's producer lock was free (value: queue|lane ids|bounds, as written by
-- awa.claim_ready_runtime). Keyed by the schema's oid, so a
-- reinstalled schema never reads a stale entry. Read-only.
-- Called by awa.claim_ready_runtime and awa.queue_pending.
CREATE FUNCTION awa._cursor_cache_key(p_queue text)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT 'awa.cursors_' || 'awa'::regnamespace::oid || '_' || translate(hashtext(p_queue)::text, '-', 'n')
$$;
