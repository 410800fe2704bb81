-- awa._slot_fingerprint(ring, slot): what prune compares before and under the
-- slot's exclusive locks: if it is unchanged, nothing that could make the slot
-- live committed in between, and the proof taken before the locks still holds
-- (docs/storage.md, "Rotation and prune").
--   queue: for each lane with rows in the ready slot, in either plane
--          (ready_entries, ready_batches), (lane_id, its highest position
--          there, its first position there above the lane's claim cursor or
--          -1). A batch row's positions are first_seq .. first_seq + n - 1,
--          read from its scalars. A producer's positions lie above every
--          position of its lane visible before it commits (lane lock), so a
--          new ready row or batch row moves its lane's tip. The proof lets
--          available jobs stay (prune carries them), so a claim may take one
--          of them while prune waits: that moves the lane's first open
--          position (claims take a lane in order; a claim of carried rows,
--          which sit below, does not). Two index probes per lane and plane in
--          the slot.
--   claim: the number of claim batches in the slot (rows only ever appear
--          until the slot is truncated).
--   lease: the number of leases in the slot.
-- Read-only. Called by awa.prune_ring.
-- Preamble as the other prune probes' on purpose (STABLE, sorts and JIT
-- off): SQL cannot share a function's attributes.
CREATE FUNCTION awa._slot_fingerprint(p_ring text, p_slot int)
RETURNS int8[]
LANGUAGE plpgsql
STABLE
SET enable_sort = off
SET jit = off
AS $$
DECLARE
    v_print int8[];
BEGIN
    IF p_ring = 'queue' THEN
        -- Each plane's tips by a skip scan of its lane index (a lane's last
        -- batch row holds its highest position: rows hold disjoint lane
        -- blocks), merged per lane; then each lane's first open position in
        -- either plane (of a batch row: the first row that reaches past the
        -- cursor, from its first position or the cursor's next).
        EXECUTE format($q$
            WITH RECURSIVE tips AS (
                (SELECT r.lane_id, r.lane_seq FROM awa.%1$I r
                 ORDER BY r.lane_id DESC, r.lane_seq DESC LIMIT 1)
                UNION ALL
                SELECT n.lane_id, n.lane_seq
                FROM tips t
                CROSS JOIN LATERAL (SELECT r.lane_id, r.lane_seq FROM awa.%1$I r
                                    WHERE r.lane_id < t.lane_id
                                    ORDER BY r.lane_id DESC, r.lane_seq DESC LIMIT 1) AS n
            ), batch_tips AS (
                (SELECT r.lane_id, r.first_seq + r.n - 1 AS lane_seq FROM awa.%2$I r
                 ORDER BY r.lane_id DESC, r.first_seq DESC LIMIT 1)
                UNION ALL
                SELECT n.lane_id, n.lane_seq
                FROM batch_tips t
                CROSS JOIN LATERAL (SELECT r.lane_id, r.first_seq + r.n - 1 AS lane_seq FROM awa.%2$I r
                                    WHERE r.lane_id < t.lane_id
                                    ORDER BY r.lane_id DESC, r.first_seq DESC LIMIT 1) AS n
            ), lanes AS (
                SELECT a.lane_id, max(a.lane_seq) AS lane_seq
                FROM (SELECT * FROM tips UNION ALL SELECT * FROM batch_tips) AS a
                GROUP BY a.lane_id
            )
            SELECT coalesce(array_agg(v ORDER BY t.lane_id, u.k), '{}')
            FROM lanes t
            LEFT JOIN awa.claim_cursors h ON h.lane_id = t.lane_id
            LEFT JOIN LATERAL (SELECT r.lane_seq FROM awa.%1$I r
                               WHERE r.lane_id = t.lane_id AND r.lane_seq > coalesce(h.claim_seq, 0)
                               ORDER BY r.lane_seq LIMIT 1) AS o (first_open) ON true
            LEFT JOIN LATERAL (SELECT greatest(r.first_seq, coalesce(h.claim_seq, 0) + 1) FROM awa.%2$I r
                               WHERE r.lane_id = t.lane_id AND r.first_seq > coalesce(h.claim_seq, 0) - 1024
                                 AND r.first_seq + r.n - 1 > coalesce(h.claim_seq, 0)
                               ORDER BY r.first_seq LIMIT 1) AS b (first_open) ON true
            CROSS JOIN LATERAL unnest(ARRAY[t.lane_id::int8, t.lane_seq,
                                            coalesce(least(o.first_open, b.first_open), -1)])
                WITH ORDINALITY AS u (v, k)$q$,
            'ready_entries_' || p_slot, 'ready_batches_' || p_slot)
        INTO v_print;
    ELSIF p_ring = 'claim' THEN
        EXECUTE format('SELECT ARRAY[count(*)] FROM awa.%I', 'claim_batches_' || p_slot) INTO v_print;
    ELSIF p_ring = 'lease' THEN
        EXECUTE format('SELECT ARRAY[count(*)] FROM awa.%I', 'leases_' || p_slot) INTO v_print;
    ELSE
        RAISE EXCEPTION 'awa: unknown ring %', quote_literal(p_ring) USING ERRCODE = 'AW010';
    END IF;
    RETURN v_print;
END;
$$;
