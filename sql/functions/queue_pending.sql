-- awa.queue_pending(queue): pending is true when some lane of the queue may
-- still hold work above its claim cursor: a committed job not claimed yet, or
-- a producer that holds the lane and may still commit. ready is true when a
-- committed job is known to wait (a lane whose producers have all ended has a
-- row above its cursor): a claim now would find it, unless another claimer
-- holds that lane. A claimer whose claim came back short asks this before it
-- sleeps: ready, it claims again at once; pending only, a producer may still
-- commit without a NOTIFY (see awa._append_ready), so it polls again soon
-- instead of waiting for one.
-- Per lane: one sequence read (awa._lane_tip); only a lane whose tip is past a
-- lower bound of its cursor (its floor, or this session's cache of cursors,
-- awa._cursor_cache_key) goes further. It is pending when its producer lock
-- (lane_producer, lane_id) is held (awa._producer_free: nothing stays held).
-- Otherwise every producer that reserved a position has ended, and the lane is
-- ready (and pending) when a row lies above its cursor (awa.claim_cursors), both
-- read after the lock test: a per-row ready row (awa.ready_entries) or a
-- batch row's item (awa.ready_batches). So positions of a rolled-back producer, or of another
-- lane sharing the pool sequence, do not count. Outside READ COMMITTED the
-- snapshot may predate a commit, so a tip past the cursor counts as pending,
-- and ready stays false.
-- A paused queue (awa.pause_queue): neither pending nor ready. A keyed
-- queue's key lanes with work (awa.active_key_lanes) count as its lanes; a key at its limit
-- still reads as ready (a claim may find nothing: the runtime backs off).
-- Writes nothing; holds no lock past the call.
-- Errors: AW002 queue NULL or a name no job can have (awa._require_queue_name).
CREATE FUNCTION awa.queue_pending(p_queue text, OUT pending boolean, OUT ready boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- The cursor read walks each marks index backwards, never sorts a lane's marks.
SET enable_sort = off
-- One generic plan per session: its statements' plans do not depend on the
-- values (lane index probes), and planning them cost more than running them.
SET plan_cache_mode = force_generic_plan
-- No sequential scans in a plan cached while the tables were small (as
-- awa.queues_ready): its per-lane probes stay index walks as the lanes grow.
SET enable_seqscan = off
AS $$
DECLARE
    v_cache text[];
    v_cids  int[] := '{}';
    v_ccur  bigint[] := '{}';
    v_lane  record;
    v_cur   bigint;
    v_rc    boolean := current_setting('transaction_isolation') = 'read committed';
BEGIN
    IF p_queue IS NULL THEN
        RAISE EXCEPTION 'awa: queue must not be null' USING ERRCODE = 'AW002';
    END IF;
    PERFORM awa._require_queue_name(p_queue);
    v_cache := string_to_array(current_setting(awa._cursor_cache_key(p_queue), true), '|');
    IF v_cache[1] = p_queue THEN
        v_cids := string_to_array(v_cache[2], ',')::int[];
        v_ccur := string_to_array(v_cache[3], ',')::bigint[];
    END IF;
    pending := false;
    ready := false;
    -- A paused queue (awa.pause_queue) has nothing to claim.
    IF EXISTS (SELECT 1 FROM awa.queue_pauses p WHERE p.queue = p_queue) THEN
        RETURN;
    END IF;
    FOR v_lane IN
        SELECT l.lane_id, l.lane_seq
        FROM awa.queue_lanes l JOIN awa.queue_claim_heads h USING (lane_id)
        WHERE (l.queue = p_queue OR l.lane_id IN (SELECT a.lane_id FROM awa.active_key_lanes a WHERE a.queue = p_queue))
          AND awa._lane_tip(l.lane_seq) > greatest(h.claim_seq, v_ccur[array_position(v_cids, l.lane_id)])
    LOOP
        IF v_rc AND NOT awa._producer_free(v_lane.lane_id) THEN
            -- Pending; another lane may still be ready.
            pending := true;
            CONTINUE;
        END IF;
        -- Statements of their own, after the lock test: they see every row
        -- of the producers that held the lane before it.
        SELECT c.claim_seq INTO v_cur FROM awa.claim_cursors c WHERE c.lane_id = v_lane.lane_id;
        CONTINUE WHEN awa._lane_tip(v_lane.lane_seq) <= v_cur;
        IF NOT v_rc THEN
            pending := true;
            RETURN;
        END IF;
        -- The first row above the cursor, in lane index order (ORDER BY ...
        -- LIMIT 1, not EXISTS: over the partitions EXISTS takes each one's
        -- cheapest total path, a bitmap scan that collects the whole
        -- backlog past the cursor before it returns one row), in either
        -- plane: a per-row ready row, or a batch row with an item above it
        -- (its block starts less than 1,024 below and it ends above).
        IF coalesce((SELECT r.lane_seq FROM awa.ready_entries r
                     WHERE r.lane_id = v_lane.lane_id AND r.lane_seq > v_cur
                     ORDER BY r.lane_seq LIMIT 1),
                    (SELECT b.first_seq FROM awa.ready_batches b
                     WHERE b.lane_id = v_lane.lane_id AND b.first_seq > v_cur - 1024 AND b.first_seq + b.n - 1 > v_cur
                     ORDER BY b.first_seq LIMIT 1)) IS NOT NULL THEN
            pending := true;
            ready := true;
            RETURN;
        END IF;
    END LOOP;
END;
$$;
