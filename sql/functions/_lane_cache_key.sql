-- awa._lane_cache_key(queue, priority): the name of the session setting that
-- caches the lanes of (queue, priority): awa.lanes_<schema oid>_<priority>_<bucket>,
-- one of 256 buckets of the queue's hash, not one setting per queue
-- (awa._cursor_cache_key says why: PostgreSQL re-sorts a session's settings
-- as each new one is made); the entry names its queue, so queues sharing a
-- bucket only push each other out. The entry itself (written by awa._append_ready, read by it and by
-- awa._append_one) is 'expiry epoch|queue|lane ids|sequence oids|shard
-- limit|max_depth|concurrency key path', '' for a missing option; awa._append_one
-- adds a tail, '|lane|position|xid|cursor generation|cursor slot' of its last
-- append at READ COMMITTED (the notify rule's evidence, docs/storage.md).
-- One expression without subqueries: inlined into its callers. Pure (given
-- the schema). Called by awa._append_ready and awa._append_one.
CREATE FUNCTION awa._lane_cache_key(p_queue text, p_priority smallint)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT 'awa.lanes_' || 'awa'::regnamespace::oid || '_' || p_priority || '_' || (hashtext(p_queue) & 255)
$$;
