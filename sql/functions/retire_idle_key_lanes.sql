-- awa.retire_idle_key_lanes(limit, idle, now): takes out of
-- awa.active_key_lanes, and returns, the key lanes listed there for at least
-- idle that are drained (no ready row above the lane's claim cursor, in
-- awa.ready_entries or a batch row's item in awa.ready_batches), at
-- most limit read a call, oldest listing first. Claims (and the queue reads)
-- visit only listed key lanes, so a queue keyed by a high-cardinality value
-- pays per claim for the keys that had work lately, not for every key ever
-- seen. A busy key's row may be taken out between two of its jobs: its next
-- producer lists it again (one row written per idle interval at most).
-- Locks: ACCESS SHARE on the claim marks first (the claim's order: marks
-- before ready rows); per lane read, its producer lock (lane_producer,
-- lane_id), try only (held: the lane is kept, a producer may be appending),
-- held to the end of the transaction; the drain test is a statement after it,
-- so it sees every row of the producers that held the lane before, and a
-- producer after it waits for this transaction and lists the lane again.
-- The lane itself (awa.key_lanes, awa.queue_lanes, its cursor) stays: ready
-- rows of it may still sit in ring slots until prune, and its key's next job
-- reuses it.
-- Errors: AW010 limit outside 1..100000, idle outside 0..7 days (nothing
-- written).
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by the maintenance leader (with the rings) and awa.run_maintenance.
CREATE FUNCTION awa.retire_idle_key_lanes(
    p_limit int DEFAULT 1000,
    p_idle  interval DEFAULT interval '1 minute',
    p_now   timestamptz DEFAULT NULL
)
RETURNS SETOF awa.active_key_lanes
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_now, now());
    v_lane awa.active_key_lanes;
    v_cur  bigint;
BEGIN
    PERFORM awa._require_read_committed('awa.retire_idle_key_lanes');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);
    PERFORM awa._require_between('idle', p_idle, interval '0', interval '7 days');
    LOCK TABLE awa.cursor_marks IN ACCESS SHARE MODE;
    FOR v_lane IN
        SELECT a.* FROM awa.active_key_lanes a
        WHERE a.activated_at <= v_now - p_idle
        ORDER BY a.activated_at
        LIMIT p_limit
    LOOP
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(awa._lock_key('lane_producer'), v_lane.lane_id);
        SELECT c.claim_seq INTO v_cur FROM awa.claim_cursors c WHERE c.lane_id = v_lane.lane_id;
        -- The first row above the cursor in index order (not EXISTS: a bitmap
        -- scan would collect a busy key's whole backlog first), in either
        -- plane: a per-row ready row, or a batch row with an item above it.
        CONTINUE WHEN coalesce((SELECT r.lane_seq FROM awa.ready_entries r
                                WHERE r.lane_id = v_lane.lane_id AND r.lane_seq > v_cur
                                ORDER BY r.lane_seq LIMIT 1),
                               (SELECT b.first_seq FROM awa.ready_batches b
                                WHERE b.lane_id = v_lane.lane_id AND b.first_seq > v_cur - 1024
                                  AND b.first_seq + b.n - 1 > v_cur
                                ORDER BY b.first_seq LIMIT 1)) IS NOT NULL;
        DELETE FROM awa.active_key_lanes a WHERE a.queue = v_lane.queue AND a.lane_id = v_lane.lane_id;
        RETURN NEXT v_lane;
    END LOOP;
END;
$$;
