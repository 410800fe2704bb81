-- awa._lock_ring_reads(rings): ACCESS SHARE on every child of the rings' tables,
-- ring by ring and in awa._ring_tables order within a ring, before a read
-- surface's statement locks them in the planner's order (which took
-- done_entries before ready_entries: with a prune's waiting attempt holding
-- ready_entries_N and waiting for done_entries_N, the read's deadlock check
-- found the cycle, 40P01; docs/storage.md, "Locks"). Pass the cursor ring
-- first, as claims take it. Held as the read's: its subtransaction ends them.
-- Called by awa._read_jobs, awa._read_terminal_jobs, awa.job, awa._job_state,
-- awa.storage_status, awa.queue_counts and awa.queue_depths.
CREATE FUNCTION awa._lock_ring_reads(p_rings text[])
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE 'LOCK TABLE ' || (SELECT string_agg(format('awa.%I', t.parent), ', ' ORDER BY g.k, t.j)
                              FROM unnest(p_rings) WITH ORDINALITY AS g (ring, k)
                              CROSS JOIN LATERAL unnest(awa._ring_tables(g.ring)) WITH ORDINALITY AS t (parent, j))
            || ' IN ACCESS SHARE MODE';
END;
$$;
