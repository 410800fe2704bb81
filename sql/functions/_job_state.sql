-- awa._job_state(job_id): the state of a job's newest attempt as awa.jobs
-- shows it, or NULL when no such job is retained; for the error messages of
-- awa.cancel_job and awa.retry_dlq_job (AW021 names the state).
-- Locks: ACCESS SHARE on the rings in prune's order (awa._lock_ring_reads)
-- before the read, which the planner would lock in its own order: a prune's
-- waiting attempt must not make this read a deadlock victim. Held to the end
-- of the caller's transaction (which the callers then abort).
CREATE FUNCTION awa._job_state(p_job_id bigint)
RETURNS awa.job_state
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
    -- A statement of its own after the locks: it sees what a prune it waited for left.
    -- The live planes by the id, and the batch plane's and the archive's lookups by id.
    RETURN (SELECT j.state
            FROM (SELECT l.state, l.run_lease FROM awa._live_jobs_now l WHERE l.id = p_job_id
                  UNION ALL
                  SELECT b.state, b.run_lease FROM awa._batch_jobs(p_job_id, p_job_id) AS b
                  UNION ALL
                  SELECT a.state, a.run_lease FROM awa._archived_job(p_job_id) AS a) AS j
            ORDER BY j.run_lease DESC LIMIT 1);
END;
$$;
