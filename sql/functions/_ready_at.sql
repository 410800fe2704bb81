-- awa._ready_at(slots, lanes, seqs): the ready rows at these lane positions
-- (ready_slot, lane_id, lane_seq, the arrays read in parallel), from either
-- plane, as awa.ready_entries rows, in no particular order; a position that
-- holds no ready row gives none, one asked twice gives its row once. A
-- per-row ready row is found by the lane index; a batch item by its row,
-- which the position names (first_seq = lane_seq & ~1023), and the asked
-- positions are grouped by row first, so a row is expanded once
-- (awa._batch_items, between its lowest and highest asked item) however
-- many of its jobs are asked for (docs/batchready.md, "Risks").
-- Locks: ACCESS SHARE on ready_entries, then ready_batches (their order in
-- awa._ring_tables). Read-only. Called by the readers of a job's body by
-- position: awa._route_closed, awa._park_closed.
CREATE FUNCTION awa._ready_at(p_slots int[], p_lanes int[], p_seqs bigint[])
RETURNS SETOF awa.ready_entries
LANGUAGE sql
STABLE
AS $$
    WITH p AS MATERIALIZED (
        SELECT DISTINCT u.ready_slot, u.lane_id, u.lane_seq
        FROM unnest(p_slots, p_lanes, p_seqs) AS u (ready_slot, lane_id, lane_seq)
    ),
    -- Each batch row asked, expanded once between its lowest and highest
    -- asked item; materialized, so no join order can expand it once per
    -- asked position. A position names one row: the LIMIT 1 keeps the row's
    -- lookup a probe of the lane index per row, whatever the plan.
    items AS MATERIALIZED (
        SELECT i.*
        FROM (SELECT p.ready_slot, p.lane_id, p.lane_seq & ~1023::bigint AS first_seq,
                     min(p.lane_seq) AS lo, max(p.lane_seq) AS hi
              FROM p GROUP BY 1, 2, 3) AS g
        CROSS JOIN LATERAL (SELECT b FROM awa.ready_batches b
                            WHERE b.lane_id = g.lane_id AND b.first_seq = g.first_seq AND b.ready_slot = g.ready_slot
                            LIMIT 1) AS x
        CROSS JOIN LATERAL awa._batch_items(x.b, g.lo - 1, (g.hi - g.lo + 1)::int) AS i
    )
    SELECT r.*
    FROM p
    JOIN awa.ready_entries r
      ON r.lane_id = p.lane_id AND r.lane_seq = p.lane_seq AND r.ready_slot = p.ready_slot
    UNION ALL
    SELECT i.*
    FROM items i
    WHERE EXISTS (SELECT 1 FROM p
                  WHERE p.lane_id = i.lane_id AND p.lane_seq = i.lane_seq AND p.ready_slot = i.ready_slot)
$$;
