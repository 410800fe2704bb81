-- awa._lane_cache_key(queue, priority): the name of the session setting that
-- caches the lanes of (queue, priority): awa.lanes_<schema oid>_<priority>_<hash
-- of queue> (the hash's sign spelled 'n': a setting name takes no '-'). The
-- entry itself (written by awa._append_ready, read by it and by
-- awa._append_one) is 'expiry epoch|queue|lane ids|sequence oids|shard
-- limit|max_depth|concurrency key path', '' for a missing option.
-- One expression without subqueries: inlined into its callers. Pure (given
-- the schema). Called by awa._append_ready and awa._append_one.
CREATE FUNCTION awa._lane_cache_key(p_queue text, p_priority smallint)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT 'awa.lanes_' || 'awa'::regnamespace::oid || '_' || p_priority || '_' || translate(hashtext(p_queue)::text, '-', 'n')
$$;
