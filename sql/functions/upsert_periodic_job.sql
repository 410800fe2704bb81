-- awa.upsert_periodic_job(name, schedule, kind, args, opts, timezone, missed,
-- now): declares a periodic job, or changes the one of that name. schedule is
-- a standard 5-field cron spec ("*/15 9-17 * * MON-FRI") or a descriptor
-- (@yearly, @monthly, @weekly, @daily, @hourly, "@every 90s"), read in
-- timezone (an IANA name, default UTC); missed says what the leader does with
-- fire times that passed while no leader ran: fire_once (default: one job, at
-- the latest) or skip. kind, args and opts are those of awa.insert_job, less
-- run_at (the fire time sets it). SQL checks the spec's shape only; the
-- maintenance leader parses it (Go, robfig/cron) and records a spec it cannot
-- parse in schedule_error (awa.reject_periodic_schedule).
-- A change of schedule or timezone bumps revision and clears next_run_at (the
-- leader computes it anew from now); any other change keeps the next fire
-- time. An upsert clears schedule_error and keeps paused. Writes nothing when
-- nothing changes. Returns the row.
-- Locks: the schedule's row (INSERT ... ON CONFLICT).
-- Errors: AW050 a bad name, schedule, timezone or missed; AW004 opts.run_at;
-- the SQLSTATEs of awa.insert_job for kind, args and opts (AW001 .. AW007).
-- Called by operators and by the maintenance leader for the schedules its
-- Config declares (Driver.UpsertPeriodicJob).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.upsert_periodic_job(p_name text, p_schedule text, p_kind text, p_args jsonb DEFAULT '{}',
                                        p_opts jsonb DEFAULT '{}', p_timezone text DEFAULT 'UTC',
                                        p_missed text DEFAULT 'fire_once', p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.periodic_jobs
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_now, now());
    v_opts jsonb := coalesce(p_opts, '{}');
BEGIN
    PERFORM awa._require_periodic_name(p_name);
    IF p_schedule ~* '^\s*(CRON_)?TZ=' THEN
        RAISE EXCEPTION 'awa: schedule must not name a time zone (TZ=, CRON_TZ=): pass it as timezone, got %',
            quote_literal(p_schedule) USING ERRCODE = 'AW050';
    END IF;
    IF p_schedule IS NULL OR length(p_schedule) > 200
       OR (p_schedule !~ '^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$'
           AND p_schedule !~ '^@every [0-9][0-9.a-zµ]*$'
           AND p_schedule !~ '^[0-9A-Za-z*/,?-]+(\s+[0-9A-Za-z*/,?-]+){4}$') THEN
        RAISE EXCEPTION 'awa: schedule must be 5 cron fields (minute hour day-of-month month day-of-week) or a descriptor (@hourly, @daily, @weekly, @monthly, @yearly, @every <duration>), got %',
            coalesce(quote_literal(p_schedule), 'null') USING ERRCODE = 'AW050';
    END IF;
    IF p_timezone IS NULL OR NOT EXISTS (SELECT 1 FROM pg_timezone_names z WHERE z.name = p_timezone) THEN
        RAISE EXCEPTION 'awa: timezone must be an IANA time zone name (pg_timezone_names), got %',
            coalesce(quote_literal(p_timezone), 'null') USING ERRCODE = 'AW050';
    END IF;
    IF p_missed IS NULL OR p_missed NOT IN ('fire_once', 'skip') THEN
        RAISE EXCEPTION 'awa: missed must be fire_once or skip, got %', coalesce(quote_literal(p_missed), 'null')
            USING ERRCODE = 'AW050';
    END IF;
    IF jsonb_typeof(v_opts) = 'object' AND v_opts ? 'run_at' THEN
        RAISE EXCEPTION 'awa: opts.run_at is not an option of a periodic job: its fire time sets it'
            USING ERRCODE = 'AW004';
    END IF;
    PERFORM awa._validate_job(p_kind, p_args, v_opts, v_now);

    INSERT INTO awa.periodic_jobs AS p (name, schedule, timezone, kind, args, opts, missed, created_at, updated_at)
    VALUES (p_name, p_schedule, p_timezone, p_kind, p_args, v_opts, p_missed, v_now, v_now)
    ON CONFLICT (name) DO UPDATE
        SET schedule = excluded.schedule, timezone = excluded.timezone, kind = excluded.kind, args = excluded.args,
            opts = excluded.opts, missed = excluded.missed, schedule_error = NULL, updated_at = excluded.updated_at,
            revision = p.revision + CASE WHEN (p.schedule, p.timezone) = (excluded.schedule, excluded.timezone)
                                         THEN 0 ELSE 1 END,
            next_run_at = CASE WHEN (p.schedule, p.timezone) = (excluded.schedule, excluded.timezone)
                               THEN p.next_run_at END
        WHERE (p.schedule, p.timezone, p.kind, p.args, p.opts, p.missed, p.schedule_error IS NULL)
              IS DISTINCT FROM (excluded.schedule, excluded.timezone, excluded.kind, excluded.args, excluded.opts,
                                excluded.missed, true);
    RETURN QUERY SELECT * FROM awa.periodic_jobs p WHERE p.name = p_name;
END;
$$;
