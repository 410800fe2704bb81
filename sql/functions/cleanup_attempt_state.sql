-- awa.cleanup_attempt_state(limit): deletes, and returns, up to limit
-- progress checkpoints (awa.attempt_state rows) whose job is gone: no ready
-- row (of either plane) or terminal snapshot in any queue slot, no backlog,
-- DLQ or parked row. That is a failed or cancelled job whose queue slot prune has reclaimed (a
-- completed job's row goes with its completion). The snapshot counts apart
-- from the ready rows: a job cancelled in the backlog has its snapshot in the
-- slot current then, while its last ready row's slot may be gone, and
-- awa.retry_job of it keeps its checkpoint. A job moves between planes in
-- one transaction, so one statement sees it in one of them. docs/storage.md,
-- "Attempt leases".
-- Cost: per checkpoint, one probe of each plane's job_id index (the batch
-- plane's first_id index).
-- Errors: AW010 limit outside 1..100000.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by the maintenance leader (with the lease ring).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.cleanup_attempt_state(p_limit int DEFAULT 1000)
RETURNS SETOF awa.attempt_progress
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    PERFORM awa._require_read_committed('awa.cleanup_attempt_state');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);
    RETURN QUERY
    DELETE FROM awa.attempt_state s
    WHERE s.job_id IN (
        SELECT g.job_id FROM awa.attempt_state g
        WHERE NOT EXISTS (SELECT 1 FROM awa.ready_entries r WHERE r.job_id = g.job_id)
          -- The batch plane: awa._ready_by_id's probe, without the body.
          AND NOT EXISTS (SELECT 1 FROM awa.ready_batches b
                          WHERE b.first_id <= g.job_id AND b.first_id > g.job_id - 1024 AND g.job_id < b.first_id + b.n)
          AND NOT EXISTS (SELECT 1 FROM awa.done_entries e WHERE e.job_id = g.job_id)
          AND NOT EXISTS (SELECT 1 FROM awa.deferred_jobs d WHERE d.job_id = g.job_id)
          AND NOT EXISTS (SELECT 1 FROM awa.dlq_entries x WHERE x.job_id = g.job_id)
          AND NOT EXISTS (SELECT 1 FROM awa.external_waits w WHERE w.job_id = g.job_id)
        ORDER BY g.job_id
        LIMIT p_limit)
    RETURNING s.job_id, s.run_lease, s.progress, s.updated_at;
END;
$$;
