-- awa._cursor_cache_key(queue): the name of the session setting that caches
-- lower bounds of a queue's claim cursors (value: queue|lane ids|cursors, as
-- written by awa.claim_ready_runtime). Keyed by the schema's oid, so a
-- reinstalled schema never reads a stale entry. Read-only.
-- Called by awa.claim_ready_runtime and awa.queue_pending.
CREATE FUNCTION awa._cursor_cache_key(p_queue text)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT 'awa.cursors_' || 'awa'::regnamespace::oid || '_' || translate(hashtext(p_queue)::text, '-', 'n')
$$;
