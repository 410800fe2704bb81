-- awa.queue_drained(queue, now): whether a queue is drained: no committed job
-- available (paused or not), no open attempt, no scheduled or retryable job
-- due and not yet promoted. Parked jobs (waiting_external) do not count: they
-- may wait for days. For deploys and tests (the Go Client.DrainQueue and
-- `awa queues drain` poll it). Each part is an existence probe that stops at
-- the first hit: per lane one index probe above its cursor in each ready
-- plane (awa.ready_entries, awa.ready_batches); the claim ring's
-- batches of the queue with one closure probe each (O(claim ring), as
-- awa.queue_counts); the backlog's due rows by its run_at index.
-- Read-only. Locks: as awa.queue_counts (the rings' share locks, in prune's
-- order, in a subtransaction rolled back before it returns).
-- Isolation: any level; outside READ COMMITTED, 40001 when a ring slot it
-- read was pruned after the transaction's snapshot.
-- Errors: AW002 queue NULL or a name no queue can have.
CREATE FUNCTION awa.queue_drained(p_queue text, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.queue_drain
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
VOLATILE
AS $$
DECLARE
    v_now timestamptz := coalesce(p_now, now());
BEGIN
    IF p_queue IS NULL THEN
        RAISE EXCEPTION 'awa: queue must not be null' USING ERRCODE = 'AW002';
    END IF;
    PERFORM awa._require_queue_name(p_queue);
    BEGIN
        PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
        RETURN QUERY
        SELECT p_queue, NOT (x.available OR x.running OR x.due), x.available, x.running, x.due
        FROM (SELECT
            EXISTS (SELECT 1 FROM awa.queue_lanes l JOIN awa.claim_cursors h USING (lane_id)
                    WHERE (l.queue = p_queue
                           OR l.lane_id IN (SELECT a.lane_id FROM awa.active_key_lanes a WHERE a.queue = p_queue))
                      AND (EXISTS (SELECT 1 FROM awa.ready_entries r
                                   WHERE r.lane_id = l.lane_id AND r.lane_seq > h.claim_seq
                                     AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                                                     WHERE t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq
                                                       AND t.ready_slot = r.ready_slot))
                           -- A batch row with more items above the cursor
                           -- than tombstones over them: arithmetic on its
                           -- block, its arrays not read.
                           OR EXISTS (SELECT 1 FROM awa.ready_batches b
                                      WHERE b.lane_id = l.lane_id AND b.first_seq > h.claim_seq - 1024
                                        AND b.first_seq + b.n - 1 > h.claim_seq
                                        AND least(b.n, b.first_seq + b.n - 1 - h.claim_seq) > (
                                            SELECT count(*) FROM awa.ready_tombstones t
                                            WHERE t.lane_id = b.lane_id AND t.ready_slot = b.ready_slot
                                              AND t.lane_seq BETWEEN greatest(b.first_seq, h.claim_seq + 1)
                                                                 AND b.first_seq + b.n - 1)))) AS available,
            EXISTS (SELECT 1 FROM awa.claim_batches b
                    WHERE b.queue = p_queue
                      AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids))) AS running,
            EXISTS (SELECT 1 FROM awa.deferred_jobs d WHERE d.queue = p_queue AND d.run_at <= v_now) AS due) AS x;
        PERFORM awa._end_ring_read('awa.queue_drained', ARRAY['queue', 'claim', 'cursor']);
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        NULL;
    END;
END;
$$;
