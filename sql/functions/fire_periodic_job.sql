-- awa.fire_periodic_job(name, revision, expected_next_run_at, fire_at,
-- new_next_run_at, now): the maintenance leader's one step for a schedule it
-- evaluated (awa.periodic_jobs_due): in this one transaction, and only while
-- the row still has that revision and next_run_at (IS NOT DISTINCT FROM: NULL
-- for a schedule's first time) and is neither paused nor rejected, it
-- enqueues the job for fire_at through awa.insert_job (when fire_at is not
-- NULL) and moves next_run_at to new_next_run_at. fire_at later than the
-- expected time covers every fire time from the expected one to fire_at (the
-- missed times of a fire_once schedule): the job's metadata says so. The job's
-- metadata gets "periodic": {"name", "fire_at"[, "missed_from"]} (times in
-- UTC) over the schedule's own metadata. Returns fired (with the job's id),
-- scheduled (no job: a first time, or missed times skipped) or stale (the
-- row moved on, was paused, deleted or rejected: nothing written). Two
-- leaders firing one fire time: the second waits for the first's row lock,
-- then finds next_run_at moved and reports stale; a leader that dies before
-- its commit has fired nothing, and the next one finds the same
-- expected_next_run_at.
-- Locks: the schedule's row (SELECT ... FOR UPDATE), then those of
-- awa.insert_job (a lane of the job's queue).
-- Errors: AW010 name, revision or new_next_run_at NULL, a fire_at without an
-- expected_next_run_at, before it or after now, a new_next_run_at not after
-- fire_at (or the expected time).
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by the maintenance leader (Driver.FirePeriodicJob).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.fire_periodic_job(p_name text, p_revision bigint, p_expected_next_run_at timestamptz,
                                      p_fire_at timestamptz, p_new_next_run_at timestamptz,
                                      p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.periodic_fire
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Timestamps in the job's metadata read the same whatever the caller's zone.
SET timezone = 'UTC'
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_now, now());
    v_row  awa.periodic_jobs;
    v_mark jsonb;
    v_job  awa.inserted_job;
BEGIN
    PERFORM awa._require_read_committed('awa.fire_periodic_job');
    IF p_name IS NULL OR p_revision IS NULL OR p_new_next_run_at IS NULL THEN
        RAISE EXCEPTION 'awa: name, revision and new_next_run_at must not be null' USING ERRCODE = 'AW010';
    END IF;
    IF p_fire_at IS NOT NULL AND p_expected_next_run_at IS NULL THEN
        RAISE EXCEPTION 'awa: fire_at % needs expected_next_run_at: a schedule''s first time is scheduled, not fired',
            p_fire_at USING ERRCODE = 'AW010';
    END IF;
    IF p_fire_at < p_expected_next_run_at OR p_fire_at > v_now THEN
        RAISE EXCEPTION 'awa: fire_at must lie between expected_next_run_at % and now %, got %',
            p_expected_next_run_at, v_now, p_fire_at USING ERRCODE = 'AW010';
    END IF;
    IF p_new_next_run_at <= coalesce(p_fire_at, p_expected_next_run_at) THEN
        RAISE EXCEPTION 'awa: new_next_run_at must be after %, got %', coalesce(p_fire_at, p_expected_next_run_at),
            p_new_next_run_at USING ERRCODE = 'AW010';
    END IF;

    SELECT * INTO v_row FROM awa.periodic_jobs p
    WHERE p.name = p_name AND p.revision = p_revision AND p.next_run_at IS NOT DISTINCT FROM p_expected_next_run_at
      AND NOT p.paused AND p.schedule_error IS NULL
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NEXT ROW(p_name, 'stale', NULL, p_fire_at, NULL)::awa.periodic_fire;
        RETURN;
    END IF;
    IF p_fire_at IS NOT NULL THEN
        v_mark := jsonb_build_object('name', p_name, 'fire_at', p_fire_at);
        IF p_fire_at > p_expected_next_run_at THEN
            v_mark := v_mark || jsonb_build_object('missed_from', p_expected_next_run_at);
        END IF;
        SELECT * INTO v_job FROM awa.insert_job(v_row.kind, v_row.args,
            v_row.opts || jsonb_build_object('metadata', coalesce(v_row.opts -> 'metadata', '{}') ||
                                                         jsonb_build_object('periodic', v_mark)));
    END IF;
    UPDATE awa.periodic_jobs p
    SET next_run_at = p_new_next_run_at, last_fired_at = coalesce(p_fire_at, p.last_fired_at),
        last_job_id = coalesce(v_job.id, p.last_job_id), updated_at = v_now
    WHERE p.name = p_name;
    RETURN NEXT ROW(p_name, CASE WHEN p_fire_at IS NULL THEN 'scheduled' ELSE 'fired' END, v_job.id, p_fire_at,
                    p_new_next_run_at)::awa.periodic_fire;
END;
$$;
