-- awa.purge_dlq(queue, failed_before, job_ids, limit): deletes DLQ jobs for
-- good and returns them. Filters combine with AND; at least one is required,
-- so a bare call cannot empty the whole DLQ by accident. Also the DLQ
-- retention cleanup (failed_before = now - retention).
-- Errors: AW010 no filter given, or limit outside 1..100000.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
CREATE FUNCTION awa.purge_dlq(
    p_queue         text DEFAULT NULL,
    p_failed_before timestamptz DEFAULT NULL,
    p_job_ids       bigint[] DEFAULT NULL,
    p_limit         int DEFAULT 10000
)
RETURNS SETOF awa.dlq_entries
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM awa._require_read_committed('awa.purge_dlq');
    IF p_queue IS NULL AND p_failed_before IS NULL AND p_job_ids IS NULL THEN
        RAISE EXCEPTION 'awa: purge_dlq needs a queue, failed_before or job_ids filter' USING ERRCODE = 'AW010';
    END IF;
    PERFORM awa._require_between('limit', p_limit, 1, 100000);

    RETURN QUERY
    DELETE FROM awa.dlq_entries d
    WHERE d.job_id IN (SELECT x.job_id FROM awa.dlq_entries x
                       WHERE (p_queue IS NULL OR x.queue = p_queue)
                         AND (p_failed_before IS NULL OR x.failed_at < p_failed_before)
                         AND (p_job_ids IS NULL OR x.job_id = ANY (p_job_ids))
                       ORDER BY x.failed_at, x.job_id
                       LIMIT p_limit
                       FOR UPDATE SKIP LOCKED)
    RETURNING d.*;
END;
$$;
