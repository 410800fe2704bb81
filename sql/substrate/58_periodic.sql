-- Periodic (cron) jobs: one row per schedule, declared from Go
-- (Config.PeriodicJobs, upserted by the maintenance leader) or from SQL
-- (awa.upsert_periodic_job). SQL cannot parse a cron spec, so the leader
-- computes each next fire time in Go and stores it in next_run_at; firing is a
-- compare-and-set on (revision, next_run_at) in the transaction that inserts
-- the job (awa.fire_periodic_job), so a fire time is enqueued once whoever
-- leads and whenever a leader dies. Touched once per fire time, never by the
-- job hot path; fillfactor leaves room for those updates to stay HOT.
CREATE TABLE awa.periodic_jobs (
    name           text        PRIMARY KEY,
    -- A standard 5-field cron spec or a descriptor (@hourly, @every 90s), as
    -- Go's robfig/cron parses it; without a TZ= prefix (see timezone).
    schedule       text        NOT NULL,
    -- IANA zone the spec is read in (pg_timezone_names at upsert).
    timezone       text        NOT NULL,
    kind           text        NOT NULL,
    args           jsonb       NOT NULL,
    -- awa.insert_job opts without run_at: queue, priority, max_attempts, tags,
    -- metadata.
    opts           jsonb       NOT NULL,
    -- Fire times passed while no leader ran: fire_once (one job for all of
    -- them, at the latest) or skip (none).
    missed         text        NOT NULL CHECK (missed IN ('fire_once', 'skip')),
    paused         boolean     NOT NULL DEFAULT false,
    -- Bumped when the schedule or its zone changes: a fire computed from the
    -- old ones is stale.
    revision       bigint      NOT NULL DEFAULT 1,
    -- The next fire time; NULL until the leader computes it (a new schedule,
    -- a changed one, a resumed one).
    next_run_at    timestamptz,
    -- The fire time of the newest job it enqueued, and that job.
    last_fired_at  timestamptz,
    last_job_id    bigint,
    -- Why the leader could not compute a fire time (awa.reject_periodic_schedule);
    -- the schedule is not evaluated until an upsert or a resume clears it.
    schedule_error text,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
) WITH (fillfactor = 50);
