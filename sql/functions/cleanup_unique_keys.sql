-- awa.cleanup_unique_keys(limit): deletes, and returns, up to limit rows of
-- awa.unique_keys and awa.unique_released (oldest first) whose job history no
-- longer has: no ready row or terminal snapshot in any queue slot, no
-- backlog, DLQ, parked or archive row. Such a key is free already (the next
-- insert of it takes it over); without this, every key ever used, one per
-- period for by_period keys, would keep its row. A job that left history never
-- comes back, so a row found so is deleted after the read, by key and job:
-- a row taken over meanwhile names another job and stays.
-- Locks: the read surfaces' ring locks (awa._lock_ring_reads) in a
-- subtransaction rolled back before the deletes, so its read is a statement
-- after them that sees a prune's carry and truncate whole (a job carried
-- between slots is never seen in neither); then the rows deleted.
-- Cost: per row read, one probe of each plane's job_id index (the archive's
-- per cohort), and only rows of jobs that asked for uniqueness.
-- Errors: AW010 limit outside 1..100000.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by the maintenance leader (with the archive) and awa.run_maintenance.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.cleanup_unique_keys(p_limit int DEFAULT 1000)
RETURNS SETOF awa.unique_key_cleanup
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_gone awa.unique_key_cleanup[];
BEGIN
    PERFORM awa._require_read_committed('awa.cleanup_unique_keys');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);
    BEGIN
        PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
        v_gone := ARRAY(
            SELECT ROW(c.job_id, c.unique_key, c.displaced)::awa.unique_key_cleanup
            FROM (SELECT k.job_id, k.unique_key, false AS displaced, k.taken_at AS at FROM awa.unique_keys k
                  UNION ALL
                  SELECT r.job_id, r.unique_key, true, NULL FROM awa.unique_released r) AS c
            WHERE NOT EXISTS (SELECT 1 FROM awa.ready_entries x WHERE x.job_id = c.job_id)
              AND NOT EXISTS (SELECT 1 FROM awa.done_entries x WHERE x.job_id = c.job_id)
              AND NOT EXISTS (SELECT 1 FROM awa.deferred_jobs x WHERE x.job_id = c.job_id)
              AND NOT EXISTS (SELECT 1 FROM awa.dlq_entries x WHERE x.job_id = c.job_id)
              AND NOT EXISTS (SELECT 1 FROM awa.external_waits x WHERE x.job_id = c.job_id)
              -- The archive: a chunk holding the job has max_job_id in
              -- [id, id + span) (awa._archived_job's bound, its ids not expanded).
              AND NOT EXISTS (SELECT 1 FROM awa.archived_chunks x
                              WHERE x.max_job_id >= c.job_id AND x.max_job_id < c.job_id + awa._archive_span()
                                AND x.min_job_id <= c.job_id AND x.job_ids @> ARRAY[c.job_id])
            ORDER BY c.displaced DESC, c.at, c.job_id
            LIMIT p_limit);
        PERFORM awa._end_ring_read('awa.cleanup_unique_keys', ARRAY['queue', 'claim', 'cursor']);
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        NULL;
    END;
    RETURN QUERY
    WITH k AS (
        DELETE FROM awa.unique_keys k USING unnest(v_gone) AS g
        WHERE NOT g.displaced AND k.unique_key = g.unique_key AND k.job_id = g.job_id
        RETURNING k.job_id, k.unique_key, false),
    r AS (
        DELETE FROM awa.unique_released r USING unnest(v_gone) AS g
        WHERE g.displaced AND r.job_id = g.job_id
        RETURNING r.job_id, r.unique_key, true)
    SELECT * FROM k UNION ALL SELECT * FROM r;
END;
$$;
