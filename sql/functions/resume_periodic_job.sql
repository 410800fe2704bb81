-- awa.resume_periodic_job(name, now): resumes a paused periodic job, or one
-- whose schedule the leader rejected (schedule_error, cleared here): its
-- next_run_at is cleared, so the leader schedules it from now on and the fire
-- times that passed meanwhile never fire. Resuming a periodic job that is
-- neither paused nor rejected changes nothing. Returns the row.
-- Locks: the schedule's row (awa._lock_periodic_job).
-- Errors: AW050 a bad name; AW051 no periodic job of that name.
-- Called by operators (Driver.ResumePeriodicJob).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.resume_periodic_job(p_name text, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.periodic_jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row awa.periodic_jobs := awa._lock_periodic_job(p_name);
BEGIN
    IF v_row.paused OR v_row.schedule_error IS NOT NULL THEN
        UPDATE awa.periodic_jobs p
        SET paused = false, schedule_error = NULL, next_run_at = NULL, updated_at = coalesce(p_now, now())
        WHERE p.name = p_name
        RETURNING p.* INTO v_row;
    END IF;
    RETURN NEXT v_row;
END;
$$;
