-- awa._carry_ready(from_slot, to_slot, limit): moves the available jobs
-- (positions above their lane's claim cursor, awa.claim_cursors, that no
-- tombstone spends) of queue slot from_slot into slot to_slot, lane by lane,
-- lowest positions first, until limit of them have moved (or none is left):
--   ready rows: up to limit, each moved with every column kept but
--     ready_slot;
--   batch rows (awa.ready_batches), while fewer than limit jobs have moved
--     (so a call may move up to 1,023 jobs more than limit): a row whose
--     positions all lie above its lane's cursor moves whole (INSERT ...
--     SELECT with the new ready_slot: its compressed arrays are copied as
--     they are, not expanded), with the tombstones of its positions (so a
--     cancelled job stays unclaimable in to_slot); a row the cursor lies in
--     keeps its claimed jobs where they are, because claim batches and
--     completion history name their bodies in from_slot (ready_slot,
--     lane_id, lane_seq): its available jobs are written to to_slot as
--     ready rows (awa._batch_items, the row read once) and the row is cut
--     to its claimed jobs (n = cursor - first_seq + 1; the arrays keep the
--     rest, which no reader reads past n). At most one row a lane is cut.
-- Positions, ids and lane order are unaffected, so claim cursors are too.
-- Returns how many available jobs moved and how many remain in from_slot
-- (counted up to limit: 0 means none). See docs/storage.md, "Rotation and
-- prune" and docs/batchready.md, "Prune and carry".
-- Writes: INSERT into to_slot's ready_entries, ready_batches and
-- ready_tombstones children (in that order, the ring's), DELETE and UPDATE
-- of the moved rows in from_slot (their dead tuples go with from_slot's
-- TRUNCATE).
-- Cost: it visits only the lanes that have rows in from_slot (a skip scan
-- of the slot's lane indexes, awa._available_rows_sql), never every lane of the database: it runs
-- under the slot's exclusive locks, where every claim waits for it.
-- Locks: none of its own. The caller holds ACCESS EXCLUSIVE on from_slot's
-- children (so no claim, cancel or producer reads or writes it meanwhile,
-- and the cursors stay where they are between its statements) and has
-- proved no open claim was drawn from it; it also holds the ring try-lock,
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
    v_open    text := awa._available_rows_sql();
    v_entries text := 'ready_entries_' || p_from;
    v_tombs   text := 'ready_tombstones_' || p_from;
    v_batches text := 'ready_batches_' || p_from;
    v_lanes   int[];
    v_firsts  bigint[];
    v_los     bigint[];
    v_avail   int;
    v_any     boolean;
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
        FROM gone g$q$, v_entries, v_tombs, v_batches)
    USING p_limit, p_to;
    GET DIAGNOSTICS moved = ROW_COUNT;

    -- The batch rows to move, if the slot holds any (a slot without them
    -- does not pay this statement's planning under the locks): in lane
    -- order, each while fewer than limit jobs have moved before it (a
    -- running sum over at most limit rows: the one sort here).
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM awa.%I)', v_batches) INTO v_any;
    IF moved < p_limit AND v_any THEN
        EXECUTE format(v_open || $q$
            SELECT array_agg(p.lane_id), array_agg(p.first_seq), array_agg(p.lo), sum(p.avail)::int
            FROM (SELECT o.*, sum(o.avail) OVER (ORDER BY o.lane_id, o.first_seq) - o.avail AS before
                  FROM open_batches o) AS p
            WHERE p.before < $2$q$, v_entries, v_tombs, v_batches)
        INTO v_lanes, v_firsts, v_los, v_avail
        USING p_limit - moved, p_limit - moved;
    END IF;

    IF v_avail > 0 THEN
        -- Statements of their own, each reading the picked rows as they are
        -- (the caller's locks keep from_slot and the cursors still), and
        -- writing ready_entries before ready_batches before ready_tombstones.
        -- A cut row's available jobs, as ready rows of to_slot: each row
        -- expanded once from its first position above the cursor, its
        -- tombstoned positions left out (their tombstones stay behind).
        EXECUTE format($q$
            INSERT INTO awa.ready_entries (
                ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
                queue, kind, args, tags, metadata, errors, created_at, run_at)
            SELECT $4, e.lane_id, e.lane_seq, e.job_id, e.run_lease, e.attempt, e.max_attempts, e.priority,
                   e.queue, e.kind, e.args, e.tags, e.metadata, e.errors, e.created_at, e.run_at
            FROM unnest($1, $2, $3) AS p (lane_id, first_seq, lo)
            JOIN awa.%1$I r ON r.lane_id = p.lane_id AND r.first_seq = p.first_seq
            CROSS JOIN LATERAL awa._batch_items(r::awa.ready_batches, p.lo - 1) AS e
            WHERE p.lo > p.first_seq
              AND NOT EXISTS (SELECT 1 FROM awa.%2$I t WHERE t.lane_id = e.lane_id AND t.lane_seq = e.lane_seq)$q$,
            v_batches, v_tombs)
        USING v_lanes, v_firsts, v_los, p_to;
        -- Whole rows, then their tombstones.
        EXECUTE format($q$
            INSERT INTO awa.ready_batches (
                ready_slot, lane_id, first_seq, first_id, n, priority, queue, created_at, kind, max_attempts,
                item_kinds, item_max_attempts, item_args, item_tags, item_metadata, item_run_ats)
            SELECT $4, r.lane_id, r.first_seq, r.first_id, r.n, r.priority, r.queue, r.created_at, r.kind,
                   r.max_attempts, r.item_kinds, r.item_max_attempts, r.item_args, r.item_tags, r.item_metadata,
                   r.item_run_ats
            FROM unnest($1, $2, $3) AS p (lane_id, first_seq, lo)
            JOIN awa.%1$I r ON r.lane_id = p.lane_id AND r.first_seq = p.first_seq
            WHERE p.lo = p.first_seq$q$, v_batches)
        USING v_lanes, v_firsts, v_los, p_to;
        EXECUTE format($q$
            INSERT INTO awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
            SELECT $4, t.lane_id, t.lane_seq, t.job_id, t.created_at
            FROM unnest($1, $2, $3) AS p (lane_id, first_seq, lo)
            JOIN awa.%1$I r ON r.lane_id = p.lane_id AND r.first_seq = p.first_seq
            JOIN awa.%2$I t ON t.lane_id = r.lane_id AND t.lane_seq BETWEEN r.first_seq AND r.first_seq + r.n - 1
            WHERE p.lo = p.first_seq$q$, v_batches, v_tombs)
        USING v_lanes, v_firsts, v_los, p_to;
        -- Then from_slot: whole rows deleted, cut rows cut.
        EXECUTE format($q$
            DELETE FROM awa.%1$I r USING unnest($1, $2, $3) AS p (lane_id, first_seq, lo)
            WHERE r.lane_id = p.lane_id AND r.first_seq = p.first_seq AND p.lo = p.first_seq$q$, v_batches)
        USING v_lanes, v_firsts, v_los;
        EXECUTE format($q$
            UPDATE awa.%1$I r SET n = (p.lo - p.first_seq)::int
            FROM unnest($1, $2, $3) AS p (lane_id, first_seq, lo)
            WHERE r.lane_id = p.lane_id AND r.first_seq = p.first_seq AND p.lo > p.first_seq$q$, v_batches)
        USING v_lanes, v_firsts, v_los;
        moved := moved + v_avail;
    END IF;

    remaining := 0;
    IF moved >= p_limit THEN
        remaining := awa._slot_available(p_from, p_limit);
    END IF;
END;
$$;
