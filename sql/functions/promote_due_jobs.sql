-- awa.promote_due_jobs(limit, now): moves up to limit due scheduled/retryable
-- jobs (run_at <= now, oldest first) from the deferred backlog into ready rows
-- and notifies their queues. Returns the promoted jobs.
-- Locks: deferred rows FOR UPDATE SKIP LOCKED (two promoters never take the same
-- job; a job being cancelled is skipped), then lane locks as awa._append_ready.
-- Errors: AW010 limit outside 1..100000. Called by the maintenance leader.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.promote_due_jobs(p_limit int DEFAULT 1000, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.inserted_job
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short statements over many partitions: JIT compilation would cost far
-- more than it saves.
SET jit = off
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_now, now());
    v_jobs awa._job_body[];
BEGIN
    PERFORM awa._require_read_committed('awa.promote_due_jobs');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);

    WITH due AS (
        DELETE FROM awa.deferred_jobs d
        WHERE d.job_id IN (SELECT x.job_id FROM awa.deferred_jobs x
                           WHERE x.run_at <= v_now
                           ORDER BY x.run_at, x.job_id
                           LIMIT p_limit
                           FOR UPDATE SKIP LOCKED)
        RETURNING d.*
    )
    SELECT array_agg(ROW(d.job_id, d.run_lease, d.attempt, d.max_attempts, d.priority, d.queue, d.kind, d.args,
                         d.tags, d.metadata, d.errors, d.created_at, d.run_at)::awa._job_body
                     ORDER BY d.run_at, d.job_id)
    INTO v_jobs
    FROM due AS d;

    IF v_jobs IS NULL THEN
        RETURN;
    END IF;

    PERFORM awa._append_ready(v_jobs, v_now);

    RETURN QUERY
    SELECT j.job_id, 'available'::awa.job_state, j.queue, j.priority, j.kind, j.run_at
    FROM unnest(v_jobs) AS j;
END;
$$;
