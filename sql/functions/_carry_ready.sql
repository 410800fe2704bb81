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
-- Cost: it visits only the lanes that have rows in from_slot (a skip scan
-- of the slot's lane index, awa._available_rows_sql), never every lane of the database: it runs
-- under the slot's exclusive locks, where every claim waits for it.
-- Locks: none of its own. The caller holds ACCESS EXCLUSIVE on from_slot's
-- children (so no claim, cancel or producer reads or writes it meanwhile) and
-- has proved no open claim was drawn from it; it also holds the ring try-lock,
-- so to_slot (the current slot, or a held one: docs/storage.md, "Held slots")
-- stays what it is. Called by awa.prune_ring only.
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
DECLARE
    -- The available rows of from_slot, lane by lane, lowest positions first.
    v_open text := awa._available_rows_sql();
BEGIN
    EXECUTE format(v_open || $q$, gone AS (
            DELETE FROM awa.%1$I r USING open p
            WHERE r.lane_id = p.lane_id AND r.lane_seq = p.lane_seq
            RETURNING r.*
        )
        INSERT INTO awa.ready_entries (
            ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
            queue, kind, args, tags, metadata, errors, created_at, run_at)
        SELECT $2, g.lane_id, g.lane_seq, g.job_id, g.run_lease, g.attempt, g.max_attempts, g.priority,
               g.queue, g.kind, g.args, g.tags, g.metadata, g.errors, g.created_at, g.run_at
        FROM gone g$q$, 'ready_entries_' || p_from, 'ready_tombstones_' || p_from)
    USING p_limit, p_to;
    GET DIAGNOSTICS moved = ROW_COUNT;

    remaining := 0;
    IF moved = p_limit THEN
        remaining := awa._slot_available(p_from, p_limit);
    END IF;
END;
$$;
