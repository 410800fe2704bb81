-- Callbacks: attempts that wait for an external system (docs/storage.md,
-- "Callbacks"). Two plain tables, written only by jobs that use callbacks.

-- A registered callback of an open attempt: the token (callback_id, random:
-- knowing a job id does not let anyone forge it), the attempt it belongs to
-- and its receipt (so a resolution closes the attempt through the finalizers'
-- guard), and when the callback-timeout rescue acts. resumed_at and result are
-- set once by awa.resume_external; the waiting handler takes the result
-- (awa.take_callback_result), which deletes the row. Parking moves the row's
-- token and timeout into awa.external_waits. Insert and delete only, but for
-- that one update; one row per attempt at most (a new registration of the job
-- supersedes the old one).
CREATE TABLE awa.callbacks (
    callback_id   uuid        PRIMARY KEY,
    job_id        bigint      NOT NULL,
    run_lease     bigint      NOT NULL,
    claim_slot    int         NOT NULL,
    receipt_id    bigint      NOT NULL,
    queue         text        NOT NULL,
    registered_at timestamptz NOT NULL,
    timeout_at    timestamptz NOT NULL,
    resumed_at    timestamptz,
    result        jsonb
);

CREATE INDEX callbacks_job_id ON awa.callbacks (job_id, run_lease);
-- All rows, resumed too: the timeout rescue deletes a resumed registration
-- whose attempt closed before its handler took the result.
CREATE INDEX callbacks_timeout_at ON awa.callbacks (timeout_at);

-- Parked jobs (waiting_external): a plane of their own, like the deferred
-- backlog, so a job that waits for days pins no ring slot and is carried by no
-- prune. The attempt that parked was closed (closure outcome 'parked'); the
-- row holds the job's body and that attempt's run_lease, and attempt counts
-- the attempts before it (the parked one is counted when it is resolved).
-- A resolution or the timeout rescue deletes the row and appends the job to
-- its next plane in the same transaction. Body columns as deferred_jobs' on
-- purpose (20_queue_ring.sql says why).
CREATE TABLE awa.external_waits (
    job_id       bigint      PRIMARY KEY,
    callback_id  uuid        NOT NULL UNIQUE,
    timeout_at   timestamptz NOT NULL,
    parked_at    timestamptz NOT NULL,
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
    run_at       timestamptz NOT NULL
);

CREATE INDEX external_waits_timeout_at ON awa.external_waits (timeout_at, job_id);
CREATE INDEX external_waits_queue ON awa.external_waits (queue);
