-- awa.storage_status(count_limit): why space has not come back. One row per
-- ring and slot: its role (current; next: the sealed slot the next rotation
-- needs; sealed), the generation it was current in and when it was sealed,
-- its rows (each child table counted up to count_limit; rows_capped says a
-- count stopped there), its on-disk size (pg_total_relation_size of its
-- children) and, for a sealed slot that holds rows, what prune would do with
-- it now: the proof prune takes (awa._slot_blocker, with the arguments prune
-- passes for that slot), so status is blocked (cause running, open_claim or
-- live_lease; the job and queue it names), carried (available jobs, or in
-- the next slot open attempts and leases, that prune moves forward) or
-- reclaimable. Statuses current and empty need no proof. Prune records no
-- outcome, so its last one is not shown (docs/storage.md, "Storage status").
-- Locks: ACCESS SHARE on every ring child (awa._lock_ring_reads, prune's
-- order), in a subtransaction rolled back before it returns
-- (awa._end_ring_read): the caller keeps none, and a prune waits at most for
-- this statement. Read-only.
-- Errors: AW010 count_limit outside 1..1000000. Isolation: any level;
-- outside READ COMMITTED, 40001 when a slot it read was pruned after the
-- transaction's snapshot. Called by operators (`awa storage status`).
CREATE FUNCTION awa.storage_status(p_count_limit int DEFAULT 10000)
RETURNS SETOF awa.storage_slot
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
VOLATILE
AS $$
BEGIN
    PERFORM awa._require_between('count_limit', p_count_limit, 1, 1000000);
    PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim', 'lease']);
    RETURN QUERY
    WITH rings AS (
        SELECT c.ring, c.slot_count, cur.generation, cur.slot AS current_slot
        FROM awa.ring_config c
        CROSS JOIN LATERAL (SELECT r.generation, r.slot FROM awa.ring_rotations r
                            WHERE r.ring = c.ring ORDER BY r.generation DESC LIMIT 1) AS cur
    ),
    slots AS (
        SELECT g.ring, s.slot, g.current_slot, g.slot_count,
               CASE WHEN s.slot = g.current_slot THEN 'current'
                    WHEN s.slot = (g.current_slot + 1) % g.slot_count THEN 'next'
                    ELSE 'sealed' END AS role,
               led.generation, led.sealed_at
        FROM rings g
        CROSS JOIN LATERAL generate_series(0, g.slot_count - 1) AS s (slot)
        -- The ledger keeps the last two wraps: the slot's latest generation,
        -- sealed by the rotation after it.
        LEFT JOIN LATERAL (SELECT r.generation,
                                  (SELECT n.rotated_at FROM awa.ring_rotations n
                                   WHERE n.ring = g.ring AND n.generation = r.generation + 1) AS sealed_at
                           FROM awa.ring_rotations r
                           WHERE r.ring = g.ring AND r.slot = s.slot
                           ORDER BY r.generation DESC LIMIT 1) AS led ON true
    ),
    sized AS (
        SELECT s.*, z.rows, z.capped, z.bytes
        FROM slots s
        CROSS JOIN LATERAL (
            SELECT sum(least(t.n, p_count_limit))::bigint AS rows, bool_or(t.n > p_count_limit) AS capped,
                   sum(pg_total_relation_size(format('awa.%I', t.child)::regclass))::bigint AS bytes
            FROM (SELECT p.parent || '_' || s.slot AS child,
                         awa._count_upto(p.parent || '_' || s.slot, p_count_limit + 1) AS n
                  FROM unnest(awa._ring_tables(s.ring)) AS p (parent)) AS t) AS z
    ),
    -- What prune would say of this slot as its target (skipped_live), then
    -- what it would move forward: for a slot not the next, the available
    -- jobs only; for the next one, those and its open attempts or leases.
    -- MATERIALIZED and CASE: each proof runs once, and only where needed.
    proved AS MATERIALIZED (
        SELECT z.*, CASE WHEN z.role <> 'current' AND z.rows > 0 AND z.ring <> 'cursor'
                         THEN awa._slot_blocker(z.ring, z.slot, true, z.role = 'next') END AS b
        FROM sized z
    ),
    carried AS MATERIALIZED (
        SELECT z.*, CASE WHEN z.role <> 'current' AND z.rows > 0 AND z.ring <> 'cursor' AND (z.b).detail IS NULL
                         THEN awa._slot_blocker(z.ring, z.slot, false, z.role <> 'next') END AS c
        FROM proved z
    )
    SELECT z.ring, z.slot, z.role, z.generation, z.sealed_at, z.rows, z.capped, z.bytes,
           CASE WHEN z.role = 'current' THEN 'current'
                WHEN z.rows = 0 THEN 'empty'
                WHEN (z.b).detail IS NOT NULL THEN 'blocked'
                WHEN (z.c).detail IS NOT NULL THEN 'carried'
                ELSE 'reclaimable' END,
           coalesce((z.b).cause, (z.c).cause), coalesce((z.b).job_id, (z.c).job_id),
           coalesce((z.b).queue, (z.c).queue), coalesce((z.b).detail, (z.c).detail)
    FROM carried z
    ORDER BY array_position(ARRAY['queue', 'claim', 'lease', 'cursor'], z.ring), z.slot;
    PERFORM awa._end_ring_read('awa.storage_status', ARRAY['cursor', 'queue', 'claim', 'lease']);
EXCEPTION WHEN SQLSTATE 'AW099' THEN
    RETURN;
END;
$$;
