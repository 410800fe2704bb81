-- awa.queue_counts(queue): jobs per state for one queue (or every queue when
-- NULL). available counts the untombstoned ready jobs above their lane's claim
-- cursor (awa.claim_cursors): the per-row ready rows walking the lane index
-- from the cursor (an index-only scan over the backlog: about 1 s per 10
-- million available jobs here), and each batch row's items above it by
-- arithmetic on its block (awa.ready_batches: its arrays are not read), less
-- the tombstones above the cursor; for the queue's lanes or, for every queue,
-- only the lanes that have rows in the queue ring (a skip scan of each plane's
-- lane index finds them: idle lanes cost nothing); running is receipts minus closures in the claim ring, less the open
-- attempts waiting for a callback; waiting_external counts those and the
-- parked jobs; completed sums compact batch sizes (and completed snapshots). completed/cancelled/failed count terminal history still
-- retained by the queue ring. Jobs of producers that have not committed are
-- not counted. Read-only, yet VOLATILE: a STABLE function's query runs on
-- its caller's snapshot, taken before the query locks the marks, so a call
-- that waited behind a cursor-ring prune read the old floor with the
-- truncated marks (docs/storage.md, "The claim cursor": lock before snapshot).
-- Locks: ACCESS SHARE on what it reads (the rings' first, in prune's order:
-- awa._lock_ring_reads), in a subtransaction rolled back
-- before it returns (awa._end_ring_read): the caller keeps none.
-- Isolation: any level; outside READ COMMITTED, 40001 when a ring slot it
-- read was pruned after the transaction's snapshot (docs/storage.md,
-- "Read surfaces").
CREATE FUNCTION awa.queue_counts(p_queue text DEFAULT NULL)
RETURNS SETOF awa.queue_count
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves (and hold partition locks while it compiles). The
-- cursor reads walk each marks index backwards, never sort a lane's marks.
SET jit = off
SET enable_sort = off
VOLATILE
AS $$
BEGIN
    PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
    -- One CTE per table family, alike on purpose: each filters and groups its
    -- own table by queue, so each keeps its own index or partition pruning.
    RETURN QUERY
    -- Lanes that can hold available jobs: with a queue, its lanes and its key
    -- lanes (awa.key_lanes: a key lane counts for its queue), by their queue
    -- indexes; without, the lanes with rows in the queue ring, found by a skip
    -- scan of the ready rows' lane index (one step per such lane), so lanes
    -- that hold nothing (idle queues) cost no cursor read and no probe. Every
    -- queue with lanes still gets its row.
    WITH RECURSIVE present AS (
        (SELECT r.lane_id FROM awa.ready_entries r WHERE p_queue IS NULL ORDER BY r.lane_id LIMIT 1)
        UNION ALL
        SELECT (SELECT r.lane_id FROM awa.ready_entries r WHERE r.lane_id > p.lane_id ORDER BY r.lane_id LIMIT 1)
        FROM present p WHERE p.lane_id IS NOT NULL
    ),
    -- The same over the batch plane's lane index.
    present_batches AS (
        (SELECT b.lane_id FROM awa.ready_batches b WHERE p_queue IS NULL ORDER BY b.lane_id LIMIT 1)
        UNION ALL
        SELECT (SELECT b.lane_id FROM awa.ready_batches b WHERE b.lane_id > p.lane_id ORDER BY b.lane_id LIMIT 1)
        FROM present_batches p WHERE p.lane_id IS NOT NULL
    ),
    lanes AS (
        SELECT l.lane_id, coalesce(k.queue, l.queue) AS queue
        FROM awa.queue_lanes l LEFT JOIN awa.key_lanes k USING (lane_id)
        WHERE p_queue IS NULL
        UNION ALL
        SELECT l.lane_id, l.queue FROM awa.queue_lanes l WHERE l.queue = p_queue
        UNION ALL
        -- Only a listed key lane (awa.active_key_lanes) can hold an available job.
        SELECT v.lane_id, v.queue FROM awa.active_key_lanes v WHERE v.queue = p_queue
    ),
    counted AS (
        SELECT c.lane_id,
               (SELECT count(*) FROM awa.ready_entries r
                WHERE r.lane_id = c.lane_id AND r.lane_seq > h.claim_seq)
               -- A batch row's items above the cursor: all n, or those
               -- past it when the cursor stands inside its block.
               + (SELECT coalesce(sum(least(b.n, b.first_seq + b.n - 1 - h.claim_seq)), 0) FROM awa.ready_batches b
                  WHERE b.lane_id = c.lane_id AND b.first_seq > h.claim_seq - 1024
                    AND b.first_seq + b.n - 1 > h.claim_seq)
               - (SELECT count(*) FROM awa.ready_tombstones t
                  WHERE t.lane_id = c.lane_id AND t.lane_seq > h.claim_seq) AS n
        FROM (SELECT p.lane_id FROM (SELECT lane_id FROM present UNION SELECT lane_id FROM present_batches) AS p
              WHERE p_queue IS NULL AND p.lane_id IS NOT NULL
              UNION ALL
              SELECT ln.lane_id FROM lanes ln WHERE p_queue IS NOT NULL) AS c
        JOIN awa.claim_cursors h USING (lane_id)
        -- A key lane not listed in awa.active_key_lanes holds nothing
        -- unclaimed (awa.retire_idle_key_lanes): not probed.
        WHERE NOT EXISTS (SELECT 1 FROM awa.key_lanes k
                          WHERE k.lane_id = c.lane_id
                            AND NOT EXISTS (SELECT 1 FROM awa.active_key_lanes v
                                            WHERE v.queue = k.queue AND v.lane_id = k.lane_id))
    ),
    available AS (
        SELECT ln.queue, coalesce(sum(c.n), 0)::bigint AS n
        FROM lanes ln LEFT JOIN counted c USING (lane_id)
        GROUP BY ln.queue
    ),
    -- Open attempts waiting for a callback (registered, not resumed) count as
    -- waiting_external, not running: one attempt probe per registration.
    waiting_open AS (
        SELECT x.queue, count(*) AS n FROM awa.callbacks x
        WHERE x.resumed_at IS NULL AND (p_queue IS NULL OR x.queue = p_queue)
          AND awa._attempt_open(x.job_id, x.run_lease, x.claim_slot, x.receipt_id)
        GROUP BY x.queue
    ),
    parked AS (
        SELECT w.queue, count(*) AS n FROM awa.external_waits w WHERE p_queue IS NULL OR w.queue = p_queue
        GROUP BY w.queue
    ),
    running AS (
        SELECT x.queue, sum(x.n)::bigint AS n
        FROM (SELECT b.queue, cardinality(b.job_ids)::bigint AS n
              FROM awa.claim_batches b WHERE p_queue IS NULL OR b.queue = p_queue
              UNION ALL
              SELECT c.queue, -(SELECT sum(upper(r) - lower(r)) FROM unnest(c.receipts) AS r)
              FROM awa.claim_closures c WHERE p_queue IS NULL OR c.queue = p_queue) AS x
        GROUP BY x.queue
    ),
    -- deferred and done: one shape over two tables on purpose (one scan each).
    deferred AS (
        SELECT d.queue, count(*) FILTER (WHERE d.state = 'scheduled') AS scheduled,
               count(*) FILTER (WHERE d.state = 'retryable') AS retryable
        FROM awa.deferred_jobs d WHERE p_queue IS NULL OR d.queue = p_queue
        GROUP BY d.queue
    ),
    completed AS (
        SELECT cb.queue, sum(cardinality(cb.job_ids))::bigint AS n
        FROM awa.done_completions cb WHERE p_queue IS NULL OR cb.queue = p_queue
        GROUP BY cb.queue
    ),
    done AS (
        SELECT d.queue, count(*) FILTER (WHERE d.state = 'completed') AS completed,
               count(*) FILTER (WHERE d.state = 'cancelled') AS cancelled,
               count(*) FILTER (WHERE d.state = 'failed') AS failed
        FROM awa.done_entries d WHERE p_queue IS NULL OR d.queue = p_queue
        GROUP BY d.queue
    ),
    dlq AS (
        SELECT d.queue, count(*) AS n FROM awa.dlq_entries d WHERE p_queue IS NULL OR d.queue = p_queue
        GROUP BY d.queue
    ),
    queues AS (
        SELECT queue FROM available UNION SELECT queue FROM running UNION SELECT queue FROM deferred
        UNION SELECT queue FROM completed UNION SELECT queue FROM done UNION SELECT queue FROM dlq
        UNION SELECT queue FROM parked
    )
    SELECT q.queue,
           coalesce(a.n, 0), coalesce(r.n, 0) - coalesce(wo.n, 0), coalesce(d.scheduled, 0),
           coalesce(d.retryable, 0), coalesce(c.n, 0) + coalesce(t.completed, 0), coalesce(t.cancelled, 0),
           coalesce(t.failed, 0), coalesce(x.n, 0), coalesce(wo.n, 0) + coalesce(p.n, 0)
    FROM queues q
    LEFT JOIN available a ON a.queue = q.queue
    LEFT JOIN running r ON r.queue = q.queue
    LEFT JOIN deferred d ON d.queue = q.queue
    LEFT JOIN completed c ON c.queue = q.queue
    LEFT JOIN done t ON t.queue = q.queue
    LEFT JOIN dlq x ON x.queue = q.queue
    LEFT JOIN waiting_open wo ON wo.queue = q.queue
    LEFT JOIN parked p ON p.queue = q.queue
    ORDER BY q.queue;
    PERFORM awa._end_ring_read('awa.queue_counts', ARRAY['queue', 'claim', 'cursor']);
EXCEPTION WHEN SQLSTATE 'AW099' THEN
    RETURN;
END;
$$;
