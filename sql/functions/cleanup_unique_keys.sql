-- awa.cleanup_unique_keys(limit): reads up to limit rows of awa.unique_keys
-- and awa.unique_released in job id order, from where the last call stopped
-- (awa.unique_cleanup_cursor; past the last row, from the first again), and
-- deletes and returns those whose job history no longer has: no ready row
-- (of either plane) or terminal snapshot in any queue slot, no backlog, DLQ,
-- parked or archive row. Such a key is free already (the next insert of it
-- takes it over); without this, every key ever used, one per period for
-- by_period keys, would keep its row. A job that left history never comes
-- back, so a row found so is deleted after the read, by key and job:
-- a row taken over meanwhile names another job and stays.
-- Locks: the read surfaces' ring locks (awa._lock_ring_reads) in a
-- subtransaction rolled back before the deletes, so its read is a statement
-- after them that sees a prune's carry and truncate whole (a job carried
-- between slots is never seen in neither); then the rows deleted.
-- Cost: at most limit rows read a call, whatever the number of keys held
-- (the ring locks are held that long: a pass over every key could keep
-- prunes waiting), per row one probe of each plane's job_id index (the
-- archive's by id bounds), and only rows of jobs that asked for uniqueness;
-- the cursor row's update (a dead tuple a call, in a one-row table).
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
    v_gone  awa.unique_key_cleanup[];
    v_after bigint;
    v_last  bigint;
    v_seen  int := 0;
BEGIN
    PERFORM awa._require_read_committed('awa.cleanup_unique_keys');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);
    SELECT c.after_job_id INTO v_after FROM awa.unique_cleanup_cursor c;
    v_after := coalesce(v_after, 0);
    BEGIN
        PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
        -- The next limit rows of the two tables by job id (each walked by its
        -- job_id index), then which of them no plane holds.
        WITH c AS MATERIALIZED (
            SELECT u.* FROM ((SELECT k.job_id, k.unique_key, false AS displaced FROM awa.unique_keys k
                              WHERE k.job_id > v_after ORDER BY k.job_id LIMIT p_limit)
                             UNION ALL
                             (SELECT r.job_id, r.unique_key, true FROM awa.unique_released r
                              WHERE r.job_id > v_after ORDER BY r.job_id LIMIT p_limit)) AS u
            ORDER BY u.job_id LIMIT p_limit
        )
        SELECT ARRAY(
                   SELECT ROW(c.job_id, c.unique_key, c.displaced)::awa.unique_key_cleanup FROM c
                   WHERE NOT EXISTS (SELECT 1 FROM awa.ready_entries x WHERE x.job_id = c.job_id)
                     -- The batch plane: awa._ready_by_id's probe, without the body.
                     AND NOT EXISTS (SELECT 1 FROM awa.ready_batches x
                                     WHERE x.first_id <= c.job_id AND x.first_id > c.job_id - 1024
                                       AND c.job_id < x.first_id + x.n)
                     AND NOT EXISTS (SELECT 1 FROM awa.done_entries x WHERE x.job_id = c.job_id)
                     AND NOT EXISTS (SELECT 1 FROM awa.deferred_jobs x WHERE x.job_id = c.job_id)
                     AND NOT EXISTS (SELECT 1 FROM awa.dlq_entries x WHERE x.job_id = c.job_id)
                     AND NOT EXISTS (SELECT 1 FROM awa.external_waits x WHERE x.job_id = c.job_id)
                     -- The archive: a chunk holding the job has max_job_id in
                     -- [id, id + span) (awa._archived_job's bound, its ids not expanded).
                     AND NOT EXISTS (SELECT 1 FROM awa.archived_chunks x
                                     WHERE x.max_job_id >= c.job_id AND x.max_job_id < c.job_id + awa._archive_span()
                                       AND x.min_job_id <= c.job_id AND x.job_ids @> ARRAY[c.job_id])),
               (SELECT max(c.job_id) FROM c), (SELECT count(*) FROM c)
        INTO v_gone, v_last, v_seen;
        PERFORM awa._end_ring_read('awa.cleanup_unique_keys', ARRAY['queue', 'claim', 'cursor']);
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        NULL;
    END;
    -- A short read reached the end: the next call starts from the first row.
    INSERT INTO awa.unique_cleanup_cursor AS u (after_job_id)
    VALUES (CASE WHEN v_seen < p_limit THEN 0 ELSE v_last END)
    ON CONFLICT (only_row) DO UPDATE SET after_job_id = excluded.after_job_id;
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
