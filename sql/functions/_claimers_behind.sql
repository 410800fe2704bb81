-- awa._claimers_behind(queue_slot, lane, before): the notify rule's test, true
-- when the lane's highest job below position `before` in queue slot
-- queue_slot lies above the lane's claim cursor (its claimers have not reached
-- it, so they are not idle); false means "notify". The highest job is the
-- higher of the per-row plane's (awa.ready_entries) and the batch plane's
-- (awa.ready_batches: the last item below `before` of the row with the
-- greatest first_seq below it, its arrays not read).
-- A producer must not queue behind a prune, which locks sealed slots only: one
-- per-slot prepared statement (awa_behind_<schema oid>_<queue slot>_<cursor
-- slot>, prepared on a session's first use and again after DEALLOCATE) reads
-- that job in the queue slot's partitions and the lane's newest mark in the
-- current cursor slot's, checked current in the same snapshot. Only a lane
-- with no mark there (no claim since the cursor ring turned) reads the whole
-- cursor (awa.claim_cursors, which may wait for a cursor-ring prune). Why each
-- read is safe: docs/storage.md, "The producer".
-- Called by awa._append_ready at READ COMMITTED only.
CREATE FUNCTION awa._claimers_behind(p_queue_slot int, p_lane int, p_before bigint)
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    v_cursor_slot int := awa._current_slot('cursor');
    v_name  text := format('awa_behind_%s_%s_%s', 'awa'::regnamespace::oid, p_queue_slot, v_cursor_slot);
    v_run   text := format('EXECUTE %s(%s, %s)', v_name, p_lane, p_before);
    v_prev  bigint;
    v_mark  bigint;
    v_current boolean;
BEGIN
    BEGIN
        EXECUTE v_run INTO v_prev, v_mark, v_current;
    EXCEPTION WHEN invalid_sql_statement_name THEN
        EXECUTE format(
            'PREPARE %s(int, bigint) AS SELECT '
            || 'greatest((SELECT r.lane_seq FROM awa.%I r WHERE r.lane_id = $1 AND r.lane_seq < $2'
            || ' ORDER BY r.lane_seq DESC LIMIT 1), '
            || '(SELECT least(b.first_seq + b.n - 1, $2 - 1) FROM awa.%I b WHERE b.lane_id = $1 AND b.first_seq < $2'
            || ' ORDER BY b.first_seq DESC LIMIT 1)), '
            || '(SELECT m.claim_seq FROM awa.%I m WHERE m.lane_id = $1 ORDER BY m.claim_seq DESC LIMIT 1), '
            || '(SELECT x.slot FROM awa.ring_rotations x WHERE x.ring = %L'
            || ' ORDER BY x.generation DESC LIMIT 1) = %s',
            v_name, 'ready_entries_' || p_queue_slot, 'ready_batches_' || p_queue_slot,
            'cursor_marks_' || v_cursor_slot, 'cursor', v_cursor_slot);
        EXECUTE v_run INTO v_prev, v_mark, v_current;
    END;
    IF v_prev IS NULL OR NOT v_current THEN
        RETURN false;
    ELSIF v_mark IS NOT NULL THEN
        RETURN v_mark < v_prev;
    END IF;
    -- A statement of its own: its locks come before its snapshot.
    RETURN EXISTS (SELECT 1 FROM awa.claim_cursors c WHERE c.lane_id = p_lane AND c.claim_seq < v_prev);
END;
$$;
