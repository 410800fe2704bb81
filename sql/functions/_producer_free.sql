-- awa._producer_free(lane_id): whether no transaction holds the lane's
-- producer lock (lane_producer, lane_id) right now, i.e. every producer that
-- reserved positions in the lane so far has committed or rolled back. A
-- session-level try-lock released in the same expression: nothing is held
-- after the call, and a query cancel (serviced at a statement's interrupt
-- checks, never between the two calls) cannot leave the lock held. True also
-- when this session itself holds the lane's transaction-level lock.
-- Called by awa.claim_ready_runtime and awa.queue_pending.
CREATE FUNCTION awa._producer_free(p_lane_id int)
RETURNS boolean
LANGUAGE sql
VOLATILE
AS $$
    SELECT CASE WHEN pg_try_advisory_lock(awa._lock_key('lane_producer'), p_lane_id)
                THEN pg_advisory_unlock(awa._lock_key('lane_producer'), p_lane_id)
                ELSE false END
$$;
