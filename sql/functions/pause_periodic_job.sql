-- awa.pause_periodic_job(name, now): pauses a periodic job: from the commit
-- on the leader neither evaluates nor fires it (a fire in flight reports
-- stale and enqueues nothing); jobs it enqueued run as usual. Idempotent:
-- pausing a paused job writes nothing.
-- Fire times that pass while it is paused never fire: awa.resume_periodic_job
-- schedules it from the time of the resume. Returns the row.
-- Locks: the schedule's row (awa._lock_periodic_job).
-- Errors: AW050 a bad name; AW051 no periodic job of that name.
-- Called by operators (Driver.PausePeriodicJob).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.pause_periodic_job(p_name text, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.periodic_jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row awa.periodic_jobs := awa._lock_periodic_job(p_name);
BEGIN
    IF NOT v_row.paused THEN
        UPDATE awa.periodic_jobs p SET paused = true, updated_at = coalesce(p_now, now())
        WHERE p.name = p_name
        RETURNING p.* INTO v_row;
    END IF;
    RETURN NEXT v_row;
END;
$$;
