-- awa.queue_depths(count_limit): each queue's claimable backlog, one row per
-- queue that has lanes: available, the ready jobs above each lane's claim
-- cursor (awa.claim_cursors) that no tombstone covers, each lane's first
-- count_limit of them counted (available_capped: a lane reached the limit, so
-- the queue holds at least that many); oldest_run_at, the earliest run_at of
-- the jobs counted: how long the longest-waiting available job has been due;
-- paused (awa.pause_queue). Both ready planes count: per-row ready rows
-- (awa.ready_entries) one by one, and each batch row's items
-- (awa.ready_batches) by arithmetic on its block less the tombstones in it,
-- the row's run_ats read only when its items have their own (item_run_ats,
-- else created_at); in a lane holding both, each plane's first count_limit
-- are read and the lane's count is capped at count_limit (its oldest_run_at
-- may then come from a job past the first count_limit). A bounded read for
-- metrics: per lane that has rows in the queue ring (found by a skip scan of
-- each plane's lane index; other lanes cost nothing) one cursor read and at
-- most count_limit index entries of each plane, whatever the backlog
-- (awa.queue_counts counts it all).
-- Locks: ACCESS SHARE on the cursor and queue rings' children
-- (awa._lock_ring_reads), in a subtransaction rolled back before it returns
-- (awa._end_ring_read): the caller keeps none. Read-only.
-- Errors: AW010 count_limit outside 1..1000000 (NULL included); outside READ
-- COMMITTED, 40001 when a slot it read was pruned after the snapshot.
-- Called by the Go client's metrics (the maintenance leader's queue_depths
-- service; docs/observability.md) and by operators.
CREATE FUNCTION awa.queue_depths(p_count_limit int DEFAULT 10000)
RETURNS SETOF awa.queue_depth
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
-- The cursor read walks each marks index backwards, and a lane's rows are read
-- in the order of the ready rows' index: never a sort.
SET enable_sort = off
VOLATILE
AS $$
BEGIN
    PERFORM awa._require_between('count_limit', p_count_limit, 1, 1000000);
    PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue']);
    RETURN QUERY
    -- Only lanes with rows in the queue ring are counted: a skip scan of the
    -- ready rows' lane index (one step per such lane) finds them, so lanes
    -- that hold nothing (idle queues, priorities never used) cost no cursor
    -- read and no probe, and the read grows with the lanes that have work.
    -- Every queue with lanes still gets its row (zero when nothing counted).
    WITH RECURSIVE present AS (
        (SELECT r.lane_id FROM awa.ready_entries r ORDER BY r.lane_id LIMIT 1)
        UNION ALL
        SELECT (SELECT r.lane_id FROM awa.ready_entries r WHERE r.lane_id > p.lane_id ORDER BY r.lane_id LIMIT 1)
        FROM present p WHERE p.lane_id IS NOT NULL
    ),
    -- The same over the batch plane's lane index.
    present_batches AS (
        (SELECT b.lane_id FROM awa.ready_batches b ORDER BY b.lane_id LIMIT 1)
        UNION ALL
        SELECT (SELECT b.lane_id FROM awa.ready_batches b WHERE b.lane_id > p.lane_id ORDER BY b.lane_id LIMIT 1)
        FROM present_batches p WHERE p.lane_id IS NOT NULL
    ),
    counted AS (
        SELECT p.lane_id, least(a.n + ab.n, p_count_limit) AS n, least(a.oldest, ab.oldest) AS oldest
        FROM (SELECT lane_id FROM present UNION SELECT lane_id FROM present_batches) AS p
        JOIN awa.claim_cursors h USING (lane_id)
        CROSS JOIN LATERAL (
            SELECT count(*) AS n, min(x.run_at) AS oldest
            FROM (SELECT r.run_at FROM awa.ready_entries r
                  WHERE r.lane_id = p.lane_id AND r.lane_seq > h.claim_seq
                    AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                                    WHERE t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq)
                  ORDER BY r.lane_seq LIMIT p_count_limit) AS x) AS a
        -- Batch rows: the items above the cursor (all n, or those past it
        -- when it stands inside the block) less the tombstones among them;
        -- the earliest run_at of a row with any left: its created_at, or the
        -- least of its item_run_ats past the cursor (one slice a row).
        CROSS JOIN LATERAL (
            SELECT coalesce(sum(y.k), 0) AS n, min(y.oldest) FILTER (WHERE y.k > 0) AS oldest
            FROM (SELECT least(b.n, b.first_seq + b.n - 1 - h.claim_seq)
                         - (SELECT count(*) FROM awa.ready_tombstones t
                            WHERE t.lane_id = b.lane_id AND t.ready_slot = b.ready_slot
                              AND t.lane_seq BETWEEN greatest(b.first_seq, h.claim_seq + 1) AND b.first_seq + b.n - 1) AS k,
                         CASE WHEN b.item_run_ats IS NULL THEN b.created_at
                              ELSE (SELECT min(u.run_at)
                                    FROM unnest(b.item_run_ats[greatest(1, h.claim_seq - b.first_seq + 2)::int:b.n]) AS u (run_at))
                         END AS oldest
                  FROM awa.ready_batches b
                  WHERE b.lane_id = p.lane_id AND b.first_seq > h.claim_seq - 1024
                    AND b.first_seq + b.n - 1 > h.claim_seq
                  ORDER BY b.first_seq LIMIT p_count_limit) AS y) AS ab
        -- A key lane not listed in awa.active_key_lanes holds nothing
        -- unclaimed (awa.retire_idle_key_lanes): not probed.
        WHERE NOT EXISTS (SELECT 1 FROM awa.key_lanes k
                          WHERE k.lane_id = p.lane_id
                            AND NOT EXISTS (SELECT 1 FROM awa.active_key_lanes v
                                            WHERE v.queue = k.queue AND v.lane_id = k.lane_id))
    )
    SELECT q.queue, coalesce(sum(c.n), 0)::bigint, coalesce(bool_or(c.n >= p_count_limit), false), min(c.oldest),
           EXISTS (SELECT 1 FROM awa.queue_pauses p WHERE p.queue = q.queue)
    FROM awa.queue_lanes l
    -- A key lane (awa.key_lanes, flow control) counts for its queue.
    LEFT JOIN awa.key_lanes k USING (lane_id)
    CROSS JOIN LATERAL (SELECT coalesce(k.queue, l.queue) AS queue) AS q
    LEFT JOIN counted c USING (lane_id)
    GROUP BY q.queue
    ORDER BY q.queue;
    PERFORM awa._end_ring_read('awa.queue_depths', ARRAY['cursor', 'queue']);
EXCEPTION WHEN SQLSTATE 'AW099' THEN
    RETURN;
END;
$$;
