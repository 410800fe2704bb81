-- awa.get_job(job_id): the job with this id wherever it lives (backlog,
-- queue ring, parked, DLQ, terminal snapshots, archive), with its state,
-- body, errors, attempt and progress, as a listing row (awa.job_listing); no
-- row when there is no such job or it is no longer retained. Every plane is
-- read by an index on the id (awa._list_jobs_sql with an id; docs/storage.md,
-- "Paging"): unlike awa.job, which finds a running or completed job by
-- walking the retained batches. Same rows as awa.job otherwise (plus
-- expires_at).
-- Locks: ACCESS SHARE on what it reads (the rings' first, in prune's order:
-- awa._lock_ring_reads), in a subtransaction rolled back before it returns
-- (awa._end_ring_read): the caller keeps none. Read-only; VOLATILE so that
-- its read locks before it takes its snapshot.
-- Isolation: any level; outside READ COMMITTED, 40001 when a ring slot it
-- read was pruned after the transaction's snapshot.
-- Errors: AW010 job_id NULL. Called by operators and dashboards (awa_admin;
-- Driver.GetJob).
-- Preamble and read block as the other read surfaces' on purpose
-- (awa._read_jobs): SQL cannot share them.
CREATE FUNCTION awa.get_job(p_job_id bigint)
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
    IF p_job_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    BEGIN
        PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
        RETURN QUERY EXECUTE awa._list_jobs_sql(p_job_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1);
        PERFORM awa._end_ring_read('awa.get_job', ARRAY['queue', 'claim', 'cursor']);
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        RETURN;
    END;
END;
$$;
