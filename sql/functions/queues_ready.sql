-- awa.queues_ready(queues, now): which of many queues a claim may find work
-- in, in one call: one row per queue (each name once, in name order) that
-- awa.queue_readiness reports pending, with its ready and wait_for. A paused
-- queue, a queue with no lane, and a queue whose every lane has its position
-- sequence at or below its claim floor (awa.queue_claim_heads) cost one index
-- probe each and return nothing; only the others run awa.queue_readiness (its
-- lane loop: O(lanes)). So a client working many queues asks this once per
-- poll instead of claiming from every idle queue (the Go runtime's shared
-- poller), and wakes only the queues it returns whose wait_for is NULL.
-- Writes nothing; holds no lock past the call (sequences and lanes are read,
-- the producer try-locks are released at once).
-- Errors: AW002 queues NULL, or an element NULL or a name no job can have
-- (awa._require_queue_name); nothing is read then.
-- Isolation: any; outside READ COMMITTED, as awa.queue_pending.
-- Called by workers (the Go driver's Driver.QueuesReady) and any SQL client.
CREATE FUNCTION awa.queues_ready(p_queues text[], p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.ready_queue
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_queue text;
    v_now   timestamptz := coalesce(p_now, now());
BEGIN
    IF p_queues IS NULL THEN
        RAISE EXCEPTION 'awa: queues must not be null' USING ERRCODE = 'AW002';
    END IF;
    FOREACH v_queue IN ARRAY p_queues LOOP
        PERFORM awa._require_queue_name(v_queue);
    END LOOP;
    -- Candidates: a lane (the queue's own, or a key lane of it) whose
    -- sequence has passed the lane's claim floor, a lower bound of its
    -- cursor; awa.queue_readiness then decides with the cursor itself.
    FOR v_queue IN
        WITH q AS (SELECT DISTINCT u.queue FROM unnest(p_queues) AS u (queue)),
        lanes AS (
            SELECT q.queue, l.lane_id, l.lane_seq
            FROM q JOIN awa.queue_lanes l ON l.queue = q.queue
            UNION ALL
            SELECT q.queue, l.lane_id, l.lane_seq
            FROM q JOIN awa.key_lanes k ON k.queue = q.queue JOIN awa.queue_lanes l ON l.lane_id = k.lane_id
        )
        SELECT DISTINCT lanes.queue
        FROM lanes JOIN awa.queue_claim_heads h USING (lane_id)
        WHERE awa._lane_tip(lanes.lane_seq) > h.claim_seq
          AND NOT EXISTS (SELECT 1 FROM awa.queue_pauses p WHERE p.queue = lanes.queue)
        ORDER BY lanes.queue
    LOOP
        RETURN QUERY
            SELECT v_queue, r.ready, r.wait_for FROM awa.queue_readiness(v_queue, v_now) AS r WHERE r.pending;
    END LOOP;
END;
$$;
