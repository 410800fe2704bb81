-- Archive plane: terminal jobs (completed, failed, cancelled) kept for a
-- retention the operator sets per state (and per queue), independent of the
-- queue ring. Queue-ring prune copies a slot's terminal rows here, one set-based
-- INSERT per slot, before it truncates the slot; awa.maintain_archive creates
-- cohort partitions ahead and reclaims expired cohorts by DROP
-- (docs/storage.md, "History archive").

-- Retention per terminal state: queue '*' is the install's default, another
-- queue name overrides it for that queue. 0 means not archived. Seeded by
-- awa.install_queue_storage_substrate (completed 24 h, failed and cancelled 7
-- days); changed by awa.configure_archive.
CREATE TABLE awa.archive_retention (
    queue      text          NOT NULL,
    state      awa.job_state NOT NULL CHECK (state IN ('completed', 'failed', 'cancelled')),
    retention  interval      NOT NULL CHECK (retention >= interval '0'),
    updated_at timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (queue, state)
);

-- The operator's export hook, at most one row: a function
-- fn(cohort_start timestamptz, cohort_end timestamptz, rel regclass) that
-- receives each cohort before it is dropped; if it raises, the cohort is kept.
CREATE TABLE awa.archive_export (
    only_row        boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    export_function regprocedure NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Archived terminal jobs, one row per job, partitioned by expiry: a row's
-- expires_at is its finalized_at plus its retention, so a cohort (one hour of
-- expires_at) whose end has passed holds only jobs past their retention and is
-- dropped whole. Children (archived_jobs_YYYYMMDDHH and the DEFAULT partition
-- archived_jobs_default, which stays empty) are created by functions. The
-- job body columns repeat those of done_entries on purpose, as every plane's
-- do (sql/substrate/20_queue_ring.sql says why).
CREATE TABLE awa.archived_jobs (
    expires_at   timestamptz   NOT NULL,
    job_id       bigint        NOT NULL,
    state        awa.job_state NOT NULL CHECK (state IN ('completed', 'cancelled', 'failed')),
    run_lease    bigint        NOT NULL,
    attempt      int           NOT NULL,
    max_attempts int           NOT NULL,
    priority     smallint      NOT NULL,
    queue        text          NOT NULL,
    kind         text          NOT NULL,
    args         jsonb         NOT NULL,
    tags         text[]        NOT NULL,
    metadata     jsonb         NOT NULL,
    errors       jsonb,
    created_at   timestamptz   NOT NULL,
    run_at       timestamptz   NOT NULL,
    finalized_at timestamptz   NOT NULL
) PARTITION BY RANGE (expires_at);

CREATE INDEX archived_jobs_job_id ON awa.archived_jobs (job_id);

-- One row per cohort partition: its range, and why its last drop was refused
-- by the export hook (kept until the export succeeds).
CREATE TABLE awa.archive_cohorts (
    cohort_start     timestamptz PRIMARY KEY,
    cohort_end       timestamptz NOT NULL,
    relname          text        NOT NULL UNIQUE,
    created_at       timestamptz NOT NULL,
    export_error     text,
    export_failed_at timestamptz
);
