-- awa.job_progress(job_id): the job's progress checkpoint (what the attempt
-- run_lease last wrote with awa.set_progress), or no row when it has none
-- (it never reported progress, or it completed; a row that holds only an
-- attempt's own deadline, awa.set_attempt_deadline, is no checkpoint).
-- Read-only, one index probe;
-- any isolation level.
-- Errors: AW010 job_id NULL.
-- Called by handlers resuming from a checkpoint (the Go driver's
-- JobRow.Progress) and by operators.
-- Preamble and NULL check as heartbeat_instance's on purpose (definer
-- rights, pinned search_path): SQL cannot share them.
CREATE FUNCTION awa.job_progress(p_job_id bigint)
RETURNS SETOF awa.attempt_progress
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_job_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    RETURN QUERY SELECT s.job_id, s.run_lease, s.progress, s.updated_at FROM awa.attempt_state s
                 WHERE s.job_id = p_job_id AND s.progress IS NOT NULL;
END;
$$;
