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

-- Listings (awa.list_jobs) page newest first by job_id; each filter has an
-- index whose order within one state is job_id, so a page of one cohort is
-- an index walk and a page of the archive a Merge Append of those walks, one
-- per cohort and terminal state (docs/storage.md, "Paging"). (state, job_id)
-- also serves a lookup by id (awa.get_job, awa.job: state IN the three
-- terminal states, one probe per state and cohort).
CREATE INDEX archived_jobs_state ON awa.archived_jobs (state, job_id);
CREATE INDEX archived_jobs_queue ON awa.archived_jobs (queue, state, job_id);
CREATE INDEX archived_jobs_kind ON awa.archived_jobs (kind, state, job_id);

-- The tags of archived jobs, one row per distinct tag of a tagged job
-- (untagged jobs write none): a listing by tag walks (tag, job_id), every
-- state in one walk, and reads each job from its cohort by (expires_at,
-- state, job_id). Written by
-- the same copy as the jobs (awa._archive_slot), partitioned alike (children
-- archived_job_tags_YYYYMMDDHH and archived_job_tags_default, created with
-- the cohort and the archive's DEFAULT) and dropped with its cohort.
CREATE TABLE awa.archived_job_tags (
    expires_at timestamptz   NOT NULL,
    tag        text          NOT NULL,
    state      awa.job_state NOT NULL,
    job_id     bigint        NOT NULL
) PARTITION BY RANGE (expires_at);

CREATE INDEX archived_job_tags_tag ON awa.archived_job_tags (tag, job_id);

-- Every retention a copy has used: a job's expires_at is its finalized_at
-- plus one of them, so a listing by finalization time reads, for each, only
-- the cohorts of [from + retention, to + retention). Written by
-- awa.configure_archive and the install with each retention they set, never
-- deleted (a job keeps the retention it was archived with).
CREATE TABLE awa.archive_retention_log (
    retention  interval    PRIMARY KEY CHECK (retention > interval '0'),
    first_used timestamptz NOT NULL DEFAULT now()
);

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
