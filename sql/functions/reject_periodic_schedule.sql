-- awa.reject_periodic_schedule(name, revision, error, now): the maintenance
-- leader records why it cannot compute a fire time for a schedule (a spec or
-- zone Go cannot parse, a spec that never fires): schedule_error is set and
-- next_run_at cleared, and awa.periodic_jobs_due leaves the schedule out until
-- an upsert or awa.resume_periodic_job clears the error. Only while the row
-- still has that revision and no error (a fixed schedule is not rejected for
-- its old spec). error is kept to its first 1000 characters. Returns the row,
-- none when stale.
-- Locks: the schedule's row (UPDATE).
-- Errors: AW010 name, revision or error NULL.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by the maintenance leader (Driver.RejectPeriodicSchedule).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.reject_periodic_schedule(p_name text, p_revision bigint, p_error text,
                                             p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.periodic_jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM awa._require_read_committed('awa.reject_periodic_schedule');
    IF p_name IS NULL OR p_revision IS NULL OR p_error IS NULL THEN
        RAISE EXCEPTION 'awa: name, revision and error must not be null' USING ERRCODE = 'AW010';
    END IF;
    RETURN QUERY
        UPDATE awa.periodic_jobs p
        SET schedule_error = left(p_error, 1000), next_run_at = NULL, updated_at = coalesce(p_now, now())
        WHERE p.name = p_name AND p.revision = p_revision AND p.schedule_error IS NULL
        RETURNING p.*;
END;
$$;
