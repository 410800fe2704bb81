-- awa.queue_pending(queue): true when some lane of the queue has positions
-- reserved above its claim cursor: jobs not claimed yet, jobs of a producer
-- that has not committed yet, or positions of a rolled-back producer that the
-- next claim will pass. A claimer whose claim came back short asks this before
-- it sleeps: when true, a producer may still commit without a NOTIFY (see
-- awa._append_ready), so it polls again soon instead of waiting for one.
-- Reads one sequence per lane, and the cursor (awa.claim_cursors) only of a
-- lane whose sequence is past a lower bound of it (its floor, or this
-- session's cache of cursors, awa._cursor_cache_key); no table scan, no lock.
-- Errors: AW002 queue NULL.
CREATE FUNCTION awa.queue_pending(p_queue text, OUT pending boolean)
LANGUAGE plpgsql
STABLE
-- The cursor read walks each marks index backwards, never sorts a lane's marks.
SET enable_sort = off
AS $$
DECLARE
    v_cache text[];
    v_cids  int[] := '{}';
    v_ccur  bigint[] := '{}';
BEGIN
    IF p_queue IS NULL THEN
        RAISE EXCEPTION 'awa: queue must not be null' USING ERRCODE = 'AW002';
    END IF;
    v_cache := string_to_array(current_setting(awa._cursor_cache_key(p_queue), true), '|');
    IF v_cache[1] = p_queue THEN
        v_cids := string_to_array(v_cache[2], ',')::int[];
        v_ccur := string_to_array(v_cache[3], ',')::bigint[];
    END IF;
    pending := EXISTS (
        SELECT 1
        FROM awa.queue_lanes l JOIN awa.queue_claim_heads h USING (lane_id)
        WHERE l.queue = p_queue
          AND coalesce(pg_sequence_last_value(l.lane_seq), 0) > greatest(h.claim_seq, v_ccur[array_position(v_cids, l.lane_id)])
          AND coalesce(pg_sequence_last_value(l.lane_seq), 0)
              > (SELECT c.claim_seq FROM awa.claim_cursors c WHERE c.lane_id = l.lane_id));
END;
$$;
