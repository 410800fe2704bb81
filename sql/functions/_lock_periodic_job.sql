-- awa._lock_periodic_job(name): the periodic job's row, locked FOR UPDATE for
-- the rest of the caller's transaction (a leader's fire of it waits).
-- Errors: AW050 a name no periodic job can have (awa._require_periodic_name);
-- AW051 no periodic job of that name.
-- Called by delete_periodic_job, pause_periodic_job and resume_periodic_job.
CREATE FUNCTION awa._lock_periodic_job(p_name text)
RETURNS awa.periodic_jobs
LANGUAGE plpgsql
AS $$
DECLARE
    v_row awa.periodic_jobs;
BEGIN
    PERFORM awa._require_periodic_name(p_name);
    SELECT * INTO v_row FROM awa.periodic_jobs p WHERE p.name = p_name FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'awa: no periodic job named %', quote_literal(p_name) USING ERRCODE = 'AW051';
    END IF;
    RETURN v_row;
END;
$$;
