-- awa.pause_periodic_job(name, now): pauses a periodic job: from the commit
-- on the leader neither evaluates nor fires it (a fire in flight reports
-- stale and enqueues nothing); jobs it enqueued run as usual. Idempotent:
-- pausing a paused job writes nothing.
-- Fire times that pass while it is paused never fire: awa.resume_periodic_job
-- schedules it from the time of the resume. Returns the row.
-- Locks: the schedule's row (UPDATE).
-- Errors: AW050 a bad name; AW051 no periodic job of that name.
-- Called by operators (Driver.PausePeriodicJob).
CREATE FUNCTION awa.pause_periodic_job(p_name text, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.periodic_jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM awa._require_periodic_name(p_name);
    UPDATE awa.periodic_jobs p SET paused = true, updated_at = coalesce(p_now, now())
    WHERE p.name = p_name AND NOT p.paused;
    RETURN QUERY SELECT * FROM awa.periodic_jobs p WHERE p.name = p_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'awa: no periodic job named %', quote_literal(p_name) USING ERRCODE = 'AW051';
    END IF;
END;
$$;
