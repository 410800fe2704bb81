-- awa.resume_periodic_job(name, now): resumes a paused periodic job, or one
-- whose schedule the leader rejected (schedule_error, cleared here): its
-- next_run_at is cleared, so the leader schedules it from now on and the fire
-- times that passed meanwhile never fire. Resuming a periodic job that is
-- neither paused nor rejected changes nothing. Returns the row.
-- Locks: the schedule's row (UPDATE).
-- Errors: AW050 a bad name; AW051 no periodic job of that name.
-- Called by operators (Driver.ResumePeriodicJob).
CREATE FUNCTION awa.resume_periodic_job(p_name text, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.periodic_jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM awa._require_periodic_name(p_name);
    UPDATE awa.periodic_jobs p
    SET paused = false, schedule_error = NULL, next_run_at = NULL, updated_at = coalesce(p_now, now())
    WHERE p.name = p_name AND (p.paused OR p.schedule_error IS NOT NULL);
    RETURN QUERY SELECT * FROM awa.periodic_jobs p WHERE p.name = p_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'awa: no periodic job named %', quote_literal(p_name) USING ERRCODE = 'AW051';
    END IF;
END;
$$;
