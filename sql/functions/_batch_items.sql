-- awa._batch_items(batch, after, max): the items of one awa.ready_batches row
-- as ready rows (awa.ready_entries' columns), in position order: those at a
-- lane position above after (-1: from the first), at most max of them. Item
-- k is the job first_id + k - 1 at position first_seq + k - 1, run_lease 0,
-- attempt 0, no errors; a NULL item array gives every item the default (the
-- scalar kind and max_attempts, tags {}, metadata {}, run_at = created_at).
-- Each array is sliced once, whatever the number of items taken: an item_*
-- array subscripted once per item would be decompressed once per item
-- (docs/batchready.md, "Risks"). Every reader of the batch plane expands rows
-- through this one definition. Pure; called by the readers of ready rows.
CREATE FUNCTION awa._batch_items(p_batch awa.ready_batches, p_after bigint DEFAULT -1, p_max int DEFAULT 1024)
RETURNS SETOF awa.ready_entries
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT p_batch.ready_slot, p_batch.lane_id, p_batch.first_seq + o.lo + u.k - 2,
           p_batch.first_id + o.lo + u.k - 2, 0::bigint, 0,
           coalesce(u.max_attempts, p_batch.max_attempts), p_batch.priority, p_batch.queue,
           coalesce(u.kind, p_batch.kind), u.args,
           coalesce(ARRAY(SELECT jsonb_array_elements_text(u.tags)), '{}'),
           coalesce(u.metadata, '{}'), NULL::jsonb, p_batch.created_at, coalesce(u.run_at, p_batch.created_at)
    FROM (SELECT greatest(1, p_after - p_batch.first_seq + 2)::int AS lo, greatest(p_max, 0) AS m) AS o
    CROSS JOIN LATERAL unnest(p_batch.item_args[o.lo:o.lo + o.m - 1], p_batch.item_kinds[o.lo:o.lo + o.m - 1],
                              p_batch.item_max_attempts[o.lo:o.lo + o.m - 1],
                              p_batch.item_metadata[o.lo:o.lo + o.m - 1], p_batch.item_run_ats[o.lo:o.lo + o.m - 1],
                              ARRAY(SELECT t.v FROM jsonb_array_elements(p_batch.item_tags) WITH ORDINALITY AS t (v, i)
                                    WHERE t.i BETWEEN o.lo AND o.lo + o.m - 1 ORDER BY t.i))
         WITH ORDINALITY AS u (args, kind, max_attempts, metadata, run_at, tags, k)
    WHERE o.lo <= p_batch.n AND u.k <= p_batch.n - o.lo + 1
$$;
