-- awa._carry_ready(from_slot, to_slot, limit): moves up to limit available
-- jobs (ready rows above their lane's claim cursor, awa.claim_cursors, that no
-- tombstone spends)
-- out of queue slot from_slot into slot to_slot, lowest lane positions first.
-- Every column is kept but ready_slot, so lane order and claim cursors are
-- unaffected. Returns how many moved and how many available jobs remain in
-- from_slot (counted up to limit: 0 means none). See docs/storage.md,
-- "Rotation and prune".
-- Writes: INSERT into to_slot, DELETE of the moved rows in from_slot (their
-- dead tuples go with from_slot's TRUNCATE).
-- Locks: none of its own. The caller holds ACCESS EXCLUSIVE on from_slot's
-- children (so no claim, cancel or producer reads or writes it meanwhile) and
-- has proved no open claim was drawn from it; it also holds the ring try-lock,
-- so to_slot stays the current slot. Called by awa.prune_ring only.
CREATE FUNCTION awa._carry_ready(p_from int, p_to int, p_limit int, OUT moved int, OUT remaining int)
LANGUAGE plpgsql
-- As in awa._slot_live_reason: walk each lane's index from its cursor. And
-- delete the picked rows by index probes: a hash or merge join would read the
-- whole slot on every call.
SET enable_sort = off
SET enable_hashjoin = off
SET enable_mergejoin = off
SET jit = off
AS $$
BEGIN
    WITH pick AS (
        SELECT a.lane_id, a.lane_seq
        FROM awa.claim_cursors h
        CROSS JOIN LATERAL (
            SELECT r.lane_id, r.lane_seq FROM awa.ready_entries r
            WHERE r.ready_slot = p_from AND r.lane_id = h.lane_id AND r.lane_seq > h.claim_seq
              AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                              WHERE t.ready_slot = p_from AND t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq)
            ORDER BY r.lane_seq
            LIMIT p_limit) AS a
        LIMIT p_limit
    ), gone AS (
        DELETE FROM awa.ready_entries r USING pick p
        WHERE r.ready_slot = p_from AND r.lane_id = p.lane_id AND r.lane_seq = p.lane_seq
        RETURNING r.*
    )
    INSERT INTO awa.ready_entries (
        ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
        queue, kind, args, tags, metadata, errors, created_at, run_at)
    SELECT p_to, g.lane_id, g.lane_seq, g.job_id, g.run_lease, g.attempt, g.max_attempts, g.priority,
           g.queue, g.kind, g.args, g.tags, g.metadata, g.errors, g.created_at, g.run_at
    FROM gone g;
    GET DIAGNOSTICS moved = ROW_COUNT;

    remaining := 0;
    IF moved = p_limit THEN
        SELECT count(*) INTO remaining
        FROM (SELECT 1
              FROM awa.claim_cursors h
              CROSS JOIN LATERAL (
                  SELECT 1 FROM awa.ready_entries r
                  WHERE r.ready_slot = p_from AND r.lane_id = h.lane_id AND r.lane_seq > h.claim_seq
                    AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                                    WHERE t.ready_slot = p_from AND t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq)
                  LIMIT p_limit) AS a
              LIMIT p_limit) AS x;
    END IF;
END;
$$;
