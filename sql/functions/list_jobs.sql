-- awa.list_jobs(states, queue, kind, tag, from, to, after, limit): one page
-- of jobs, live and archived, newest first (job id descending), filtered by
-- state (any of), queue, kind, tag and a range of finalized_at [from, to)
-- (finished jobs only). Keyset paging: the next page is after => the last id
-- of this one; a page shorter than limit is the last. New jobs get higher
-- ids, so they never shift a later page. Each page reads each plane through
-- an index in job order (awa._list_jobs_sql; docs/storage.md, "Paging").
-- Locks: ACCESS SHARE on what it reads (the rings' first, in prune's order:
-- awa._lock_ring_reads), in a subtransaction rolled back before it returns
-- (awa._end_ring_read): the caller keeps none. Read-only; VOLATILE so that
-- its read locks before it takes its snapshot.
-- Isolation: any level; outside READ COMMITTED, 40001 when a ring slot it
-- read was pruned after the transaction's snapshot.
-- Errors: AW010 limit outside 1..1000, states empty or holding NULL, from
-- after to; AW002 a queue name no queue can have; AW001 kind empty or over
-- 255 characters; AW007 tag empty or over 100 characters. A state name that
-- is not an awa.job_state fails in the caller's cast (22P02).
-- Called by operators and dashboards (awa_admin; Driver.ListJobs).
-- Preamble and read block as the other read surfaces' on purpose
-- (awa._read_jobs): SQL cannot share them.
CREATE FUNCTION awa.list_jobs(p_states awa.job_state[] DEFAULT NULL, p_queue text DEFAULT NULL,
                              p_kind text DEFAULT NULL, p_tag text DEFAULT NULL, p_from timestamptz DEFAULT NULL,
                              p_to timestamptz DEFAULT NULL, p_after bigint DEFAULT NULL, p_limit int DEFAULT 50)
RETURNS SETOF awa.job_listing
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves. Every branch walks an index in job order and
-- probes the other planes per row by index: no sort or scan of a plane
-- wins on a misestimate (on a small table they are cheaper once, but a
-- probe runs once per row walked; internal/listing holds the plans). No
-- parallel workers: a page reads a few hundred rows.
SET jit = off
SET enable_sort = off
SET enable_seqscan = off
SET max_parallel_workers_per_gather = 0
AS $$
BEGIN
    PERFORM awa._require_listing_filter(p_queue, p_kind, p_tag, p_limit);
    IF cardinality(p_states) = 0 OR array_position(p_states, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'awa: states must be NULL (any) or job states without NULL, got %', p_states
            USING ERRCODE = 'AW010';
    END IF;
    IF p_from > p_to THEN
        RAISE EXCEPTION 'awa: from must not be after to, got from % and to %', p_from, p_to USING ERRCODE = 'AW010';
    END IF;
    BEGIN
        PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
        RETURN QUERY EXECUTE awa._list_jobs_sql(NULL, p_states, p_queue, p_kind, p_tag, p_from, p_to, p_after,
                                                p_limit);
        PERFORM awa._end_ring_read('awa.list_jobs', ARRAY['queue', 'claim', 'cursor']);
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        RETURN;
    END;
END;
$$;
