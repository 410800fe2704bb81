-- awa.job(id): the one job of awa.jobs with this id (no row when there is no
-- such job, or it is no longer retained), by its id: a filter on the view
-- awa.jobs is applied to the whole view; here the id reaches every live
-- branch, the batch plane by its rows' first_id (awa._batch_jobs) and the
-- archive by its chunks' id bounds (awa._archived_job; docs/storage.md,
-- "Read surfaces").
-- Locks: ACCESS SHARE on what it reads (the rings' first, in prune's order:
-- awa._lock_ring_reads), in a subtransaction rolled back
-- before it returns (awa._end_ring_read): the caller keeps none.
-- Isolation: any level; outside READ COMMITTED, 40001 when a ring slot it
-- read was pruned after the transaction's snapshot (docs/storage.md,
-- "Read surfaces"). Read-only; VOLATILE so that its read locks before it
-- takes its snapshot.
-- Errors: AW010 id NULL. Called by operators and dashboards (awa_admin).
-- Preamble and read block as the other read surfaces' on purpose
-- (awa._read_jobs): SQL cannot share them.
CREATE FUNCTION awa.job(p_id bigint)
RETURNS SETOF awa.jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves.
SET jit = off
AS $$
BEGIN
    IF p_id IS NULL THEN
        RAISE EXCEPTION 'awa: id must not be null' USING ERRCODE = 'AW010';
    END IF;
    BEGIN
        PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
        -- The live planes by the id, the batch plane's lookup by id and the
        -- archive's (their views would expand every row or chunk: the id
        -- cannot reach the arrays).
        RETURN QUERY
        SELECT j.*, s.progress, s.updated_at
        FROM (SELECT * FROM awa._live_jobs_now l WHERE l.id = p_id
              UNION ALL
              SELECT * FROM awa._batch_jobs(p_id, p_id)
              UNION ALL
              SELECT a.job_id, a.queue, a.priority, a.kind, a.state, a.args, a.attempt, a.max_attempts, a.run_lease,
                     a.run_at, a.created_at, NULL, a.finalized_at, a.tags, a.metadata, a.errors, false
              FROM awa._archived_job(p_id) AS a) AS j
        LEFT JOIN awa.attempt_state s ON s.job_id = j.id;
        PERFORM awa._end_ring_read('awa.job', ARRAY['queue', 'claim', 'cursor']);
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        RETURN;
    END;
END;
$$;
