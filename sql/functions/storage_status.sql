-- awa.storage_status(count_limit): why space has not come back. One row per
-- ring slot: role (current; next, the sealed slot the next rotation needs;
-- held, a sealed slot prune left to a large backlog, out of the rotation;
-- sealed), generation and seal time, rows (table rows, each table counted
-- up to count_limit: rows_capped; a batch row of awa.ready_batches is one
-- row holding up to 1,024 jobs, so a queue slot holding batch rows says in
-- its detail how many rows are batch rows and how many jobs they hold),
-- on-disk size, and for a sealed slot holding rows
-- what prune would do now: blocked (its own proof, awa._slot_blocker with
-- prune's arguments, naming job, queue and cause), locked (another session
-- holds one of its tables), carried, held (a held slot whose available
-- jobs remain) or reclaimable. Prune records no outcome:
-- none is shown. Then the archive (ring 'archive'): its DEFAULT partition
-- (slot -1, blocked while it holds rows) and each cohort, oldest first, with
-- its retention end as sealed_at: retained, empty, reclaimable, locked, or
-- blocked by a failed export (cause export). Statuses and costs:
-- docs/storage.md, "Storage status" and "History archive".
-- Locks: ACCESS SHARE on every ring child (awa._lock_ring_reads), released
-- before it returns (awa._end_ring_read): a prune waits at most for this
-- statement. Read-only.
-- Errors: AW010 count_limit outside 1..1000000; outside READ COMMITTED,
-- 40001 when a slot it read was pruned after the snapshot.
-- Called by operators (`awa storage status`).
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
                    WHEN EXISTS (SELECT 1 FROM awa.ring_held_slots k WHERE k.ring = g.ring AND k.slot = s.slot)
                        THEN 'held'
                    WHEN s.slot = awa._ring_next_slot(g.ring, g.current_slot) THEN 'next'
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
    -- A queue slot's batch rows and the jobs they hold (the sum of their n,
    -- a scalar: no item array is read), each counted over at most
    -- count_limit + 1 rows, as the table counts above.
    batched AS (
        SELECT z.ring, z.slot, w.rows, w.jobs
        FROM sized z
        CROSS JOIN LATERAL (SELECT awa._count_upto('ready_batches_' || z.slot, p_count_limit + 1) AS rows,
                                   awa._count_upto('ready_batches_' || z.slot, p_count_limit + 1, 'n') AS jobs) AS w
        WHERE z.ring = 'queue' AND z.rows > 0
    ),
    -- Another session holding a lock on a sealed slot's table: prune cannot
    -- take its ACCESS EXCLUSIVE while it does (skipped_blocked, retried).
    held AS (
        SELECT DISTINCT ON (z.ring, z.slot) z.ring, z.slot,
               format('%s holds %s on %s%s',
                      coalesce('pid ' || l.pid, 'prepared transaction ' || l.virtualtransaction), l.mode,
                      l.relation::regclass,
                      CASE WHEN a.state IS NOT NULL THEN format(' (%s since %s)', a.state, a.state_change) ELSE '' END)
                   AS detail
        FROM sized z
        CROSS JOIN LATERAL unnest(awa._ring_tables(z.ring)) AS p (parent)
        JOIN pg_locks l ON l.locktype = 'relation' AND l.granted AND l.pid IS DISTINCT FROM pg_backend_pid()
                       AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
                       AND l.relation = format('awa.%I', p.parent || '_' || z.slot)::regclass
        LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE z.role <> 'current' AND z.rows > 0
        -- A session before autovacuum (which gives its lock up to a waiter
        -- after deadlock_timeout): the holder an operator can act on.
        ORDER BY z.ring, z.slot, a.backend_type = 'autovacuum worker', l.pid
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
                WHEN h.detail IS NOT NULL THEN 'locked'
                WHEN (z.c).detail IS NOT NULL AND z.role = 'held' THEN 'held'
                WHEN (z.c).detail IS NOT NULL THEN 'carried'
                ELSE 'reclaimable' END,
           CASE WHEN (z.b).detail IS NULL AND h.detail IS NOT NULL THEN 'lock' ELSE coalesce((z.b).cause, (z.c).cause) END,
           CASE WHEN (z.b).detail IS NULL AND h.detail IS NOT NULL THEN NULL ELSE coalesce((z.b).job_id, (z.c).job_id) END,
           CASE WHEN (z.b).detail IS NULL AND h.detail IS NOT NULL THEN NULL ELSE coalesce((z.b).queue, (z.c).queue) END,
           -- What a row is, where the slot holds batch rows.
           nullif(concat_ws('; ', coalesce((z.b).detail, h.detail, (z.c).detail),
                     CASE WHEN w.rows > 0
                          THEN format('%s%s of its rows are batch rows (awa.ready_batches) holding %s%s jobs: a batch row is one row of up to 1024 jobs',
                                      CASE WHEN w.rows > p_count_limit THEN 'more than ' ELSE '' END,
                                      least(w.rows, p_count_limit),
                                      CASE WHEN w.rows > p_count_limit THEN 'at least ' ELSE '' END, w.jobs)
                     END), '')
    FROM carried z
    LEFT JOIN held h ON h.ring = z.ring AND h.slot = z.slot
    LEFT JOIN batched w ON w.ring = z.ring AND w.slot = z.slot
    ORDER BY array_position(ARRAY['queue', 'claim', 'lease', 'cursor'], z.ring), z.slot;
    -- The archive: its DEFAULT partition (slot -1), then one row per cohort,
    -- oldest first (slot 0 is the oldest retained cohort); sealed_at is when
    -- the cohort's retention ends (docs/storage.md, "History archive").
    RETURN QUERY
    WITH cohorts AS (
        SELECT -1 AS slot, 'default' AS role, NULL::timestamptz AS cohort_end, 'archived_chunks_default' AS relname,
               NULL::text AS export_error
        UNION ALL
        SELECT (row_number() OVER (ORDER BY c.cohort_start) - 1)::int, 'cohort', c.cohort_end, c.relname,
               c.export_error
        FROM awa.archive_cohorts c
    ),
    -- Another session holding a cohort: a drop skips it (pg_locks read once).
    held AS (
        SELECT DISTINCT ON (l.relation) l.relation,
               format('%s holds %s on %s%s', coalesce('pid ' || l.pid, 'prepared transaction ' || l.virtualtransaction),
                      l.mode, l.relation::regclass,
                      CASE WHEN a.state IS NOT NULL THEN format(' (%s since %s)', a.state, a.state_change) ELSE '' END)
                   AS detail
        FROM pg_locks l
        LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'relation' AND l.granted AND l.pid IS DISTINCT FROM pg_backend_pid()
          AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
          AND l.relation IN (SELECT format('awa.%I', c.relname)::regclass FROM cohorts c)
        ORDER BY l.relation, a.backend_type = 'autovacuum worker', l.pid
    ),
    sized AS (
        SELECT c.*, awa._count_upto(c.relname, p_count_limit + 1, 'n') AS n,
               pg_total_relation_size(format('awa.%I', c.relname)::regclass)
               + coalesce(pg_total_relation_size(to_regclass(format('awa.%I', awa._cohort_tags_relname(c.relname)))), 0)
                   AS bytes, h.detail AS held
        FROM cohorts c
        LEFT JOIN held h ON h.relation = format('awa.%I', c.relname)::regclass
    )
    SELECT 'archive'::text, z.slot, z.role, NULL::bigint, z.cohort_end, least(z.n, p_count_limit), z.n > p_count_limit,
           z.bytes,
           CASE WHEN z.role = 'default' AND z.n = 0 THEN 'empty'
                WHEN z.role = 'default' THEN 'blocked'
                WHEN z.export_error IS NOT NULL THEN 'blocked'
                WHEN z.cohort_end > now() AND z.n = 0 THEN 'empty'
                WHEN z.cohort_end > now() THEN 'retained'
                WHEN z.held IS NOT NULL THEN 'locked'
                ELSE 'reclaimable' END,
           CASE WHEN z.role = 'default' AND z.n > 0 THEN 'default'
                WHEN z.role = 'default' THEN NULL
                WHEN z.export_error IS NOT NULL THEN 'export'
                WHEN z.cohort_end > now() THEN NULL
                WHEN z.held IS NOT NULL THEN 'lock' END,
           NULL::bigint, NULL::text,
           CASE WHEN z.role = 'default' AND z.n > 0
                    THEN 'jobs whose cohort had no partition: awa.maintain_archive moves them to their cohorts'
                WHEN z.role = 'default' THEN NULL
                WHEN z.export_error IS NOT NULL THEN format('awa.%s: export failed: %s', z.relname, z.export_error)
                WHEN z.cohort_end > now() THEN format('awa.%s: retention runs until %s', z.relname, z.cohort_end)
                WHEN z.held IS NOT NULL THEN z.held
                ELSE format('awa.%s: retention passed, awa.maintain_archive drops it', z.relname) END
    FROM sized z
    ORDER BY z.slot;
    PERFORM awa._end_ring_read('awa.storage_status', ARRAY['cursor', 'queue', 'claim', 'lease']);
EXCEPTION WHEN SQLSTATE 'AW099' THEN
    RETURN;
END;
$$;
