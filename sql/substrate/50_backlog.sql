-- Deferred backlog: scheduled (future run_at, snoozed) and retryable jobs.
-- The job body columns repeat those of the queue ring's tables on purpose
-- (20_queue_ring.sql says why).
-- A plain table: promotion deletes a row and appends its ready row.
CREATE TABLE awa.deferred_jobs (
    job_id       bigint        PRIMARY KEY,
    state        awa.job_state NOT NULL CHECK (state IN ('scheduled', 'retryable')),
    run_at       timestamptz   NOT NULL,
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
    created_at   timestamptz   NOT NULL
);

CREATE INDEX deferred_jobs_run_at ON awa.deferred_jobs (run_at, job_id);

-- Operator hold for failed jobs of DLQ-enabled queues: kept until retried,
-- purged, or removed by retention.
-- Its body columns repeat those of deferred_jobs on purpose (see above).
CREATE TABLE awa.dlq_entries (
    job_id       bigint      PRIMARY KEY,
    run_lease    bigint      NOT NULL,
    attempt      int         NOT NULL,
    max_attempts int         NOT NULL,
    priority     smallint    NOT NULL,
    queue        text        NOT NULL,
    kind         text        NOT NULL,
    args         jsonb       NOT NULL,
    tags         text[]      NOT NULL,
    metadata     jsonb       NOT NULL,
    errors       jsonb,
    created_at   timestamptz NOT NULL,
    run_at       timestamptz NOT NULL,
    failed_at    timestamptz NOT NULL
);

CREATE INDEX dlq_entries_queue_failed_at ON awa.dlq_entries (queue, failed_at);
CREATE INDEX dlq_entries_failed_at ON awa.dlq_entries (failed_at);
