-- awa.periodic_jobs_due(now, limit): the periodic jobs the maintenance
-- leader must evaluate now, up to limit: those whose next fire time has come
-- (next_run_at <= now) and those without one yet (new, changed or resumed),
-- these first, then the most overdue. Paused and rejected ones
-- (schedule_error) are left out. Each row carries what the leader computes
-- from (schedule, timezone, missed, revision, next_run_at) and now, the
-- database's clock, so every leader computes from one clock.
-- Read-only: no lock (awa.fire_periodic_job decides under the row's lock).
-- Errors: AW010 limit outside 1..10000.
-- Called by the maintenance leader (Driver.PeriodicJobsDue).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.periodic_jobs_due(p_now timestamptz DEFAULT NULL, p_limit int DEFAULT 1000)
RETURNS SETOF awa.periodic_due
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now timestamptz := coalesce(p_now, now());
BEGIN
    PERFORM awa._require_between('limit', p_limit, 1, 10000);
    RETURN QUERY
        SELECT p.name, p.revision, p.schedule, p.timezone, p.missed, p.next_run_at, v_now
        FROM awa.periodic_jobs p
        WHERE NOT p.paused AND p.schedule_error IS NULL AND (p.next_run_at IS NULL OR p.next_run_at <= v_now)
        ORDER BY p.next_run_at NULLS FIRST, p.name
        LIMIT p_limit;
END;
$$;
