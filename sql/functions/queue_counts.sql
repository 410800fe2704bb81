-- awa.queue_counts(queue): jobs per state for one queue (or every queue when
-- NULL). available counts the untombstoned ready rows above their lane's claim
-- cursor (awa.claim_cursors), walking the lane index from the cursor (an
-- index-only scan over the backlog: about 1 s per 10 million available jobs
-- here); running is receipts minus closures in the claim ring, less the open
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
    WITH available AS (
        SELECT coalesce(k.queue, l.queue) AS queue,
               sum((SELECT count(*) FROM awa.ready_entries r
                    WHERE r.lane_id = l.lane_id AND r.lane_seq > h.claim_seq)
                   - (SELECT count(*) FROM awa.ready_tombstones t
                      WHERE t.lane_id = l.lane_id AND t.lane_seq > h.claim_seq))::bigint AS n
        FROM awa.queue_lanes l JOIN awa.claim_cursors h USING (lane_id)
        -- A key lane (awa.key_lanes) counts for its queue; only a listed
        -- one (awa.active_key_lanes) can hold an available job.
        LEFT JOIN awa.key_lanes k USING (lane_id)
        WHERE (p_queue IS NULL OR l.queue = p_queue OR k.queue = p_queue)
          AND (k.lane_id IS NULL
               OR EXISTS (SELECT 1 FROM awa.active_key_lanes v WHERE v.queue = k.queue AND v.lane_id = k.lane_id))
        GROUP BY 1
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
