-- awa.delete_periodic_job(name): deletes a periodic job; jobs it enqueued stay.
-- A leader's fire in flight for it then reports stale and enqueues nothing.
-- A schedule that a client's Config declares comes back at the next leader
-- start: remove it from the Config too. Returns the deleted row.
-- Locks: the schedule's row (awa._lock_periodic_job, then DELETE).
-- Errors: AW050 a bad name; AW051 no periodic job of that name.
-- Called by operators (Driver.DeletePeriodicJob).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.delete_periodic_job(p_name text)
RETURNS SETOF awa.periodic_jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM awa._lock_periodic_job(p_name);
    RETURN QUERY DELETE FROM awa.periodic_jobs p WHERE p.name = p_name RETURNING p.*;
END;
$$;
