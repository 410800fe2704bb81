-- awa.list_periodic_jobs(): every periodic job, by name: its schedule, zone,
-- job, policy, pause, next fire time, last fire and any schedule_error.
-- Read-only. Called by operators (Driver.PeriodicJobs).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.list_periodic_jobs()
RETURNS SETOF awa.periodic_jobs
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa.periodic_jobs p ORDER BY p.name
$$;
