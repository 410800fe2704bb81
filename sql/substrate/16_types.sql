-- Result shapes added after release 0.1.0 (15_types.sql is released; a
-- statement changed there needs an upgrade step, db/upgrade). Same rules.

-- A job's progress checkpoint: what the attempt run_lease last wrote with
-- awa.set_progress, at updated_at.
CREATE TABLE awa.attempt_progress (
    job_id     bigint      NOT NULL,
    run_lease  bigint      NOT NULL,
    progress   jsonb       NOT NULL,
    updated_at timestamptz NOT NULL,
    CHECK (false)
);

-- What awa.set_attempt_deadline did: applied (state running) with the
-- deadline recorded for the attempt, deadline_at: the one asked for, or the
-- queue's cap when that comes first (claimed_at + the queue's
-- deadline_seconds); or stale (the attempt is not open: nothing was written,
-- deadline_at null).
CREATE TABLE awa.attempt_deadline (
    job_id      bigint NOT NULL,
    run_lease   bigint NOT NULL,
    outcome     awa.finalize_outcome NOT NULL,
    state       awa.job_state,
    deadline_at timestamptz,
    CHECK (false)
);

-- Internal: what keeps a ring slot from being truncated (awa._slot_blocker):
-- the cause (available, running, open_claim, live_lease), one job it names,
-- that job's queue, and the text prune reports.
CREATE TYPE awa._slot_blocker AS (
    cause  text,
    job_id bigint,
    queue  text,
    detail text
);

-- One ring slot as awa.storage_status sees it: role (current, next: the
-- sealed slot the next rotation needs, sealed), the generation it was current
-- in and when it was sealed, its rows (counted up to a limit per table) and
-- on-disk size, and what prune would do with it now.
CREATE TABLE awa.storage_slot (
    ring        text        NOT NULL,
    slot        int         NOT NULL,
    role        text        NOT NULL,
    generation  bigint,
    sealed_at   timestamptz,
    rows        bigint      NOT NULL,
    rows_capped boolean     NOT NULL,
    bytes       bigint      NOT NULL,
    status      text        NOT NULL,
    cause       text,
    job_id      bigint,
    queue       text,
    detail      text,
    CHECK (false)
);

-- A callback registration (awa.register_callback): applied with the token
-- (callback_id) and the time the callback-timeout rescue acts, or stale (the
-- attempt is not open: nothing was written, both null).
CREATE TABLE awa.callback_registration (
    job_id      bigint NOT NULL,
    run_lease   bigint NOT NULL,
    outcome     awa.finalize_outcome NOT NULL,
    callback_id uuid,
    timeout_at  timestamptz,
    CHECK (false)
);

-- Outcome of resolving a callback token (awa.complete_external and its
-- siblings): applied with the job's new state, or stale (job_id null when the
-- token names no attempt at all).
CREATE TABLE awa.callback_outcome (
    callback_id uuid NOT NULL,
    job_id      bigint,
    run_lease   bigint,
    outcome     awa.finalize_outcome NOT NULL,
    state       awa.job_state,
    CHECK (false)
);

-- What a sequential wait sees (awa.take_callback_result): status 'waiting'
-- (no resolution yet), 'resumed' (result is the resume payload, handed over
-- once) or 'stale' (the attempt or its callback is gone).
CREATE TABLE awa.callback_wait (
    job_id    bigint NOT NULL,
    run_lease bigint NOT NULL,
    status    text NOT NULL,
    result    jsonb,
    CHECK (false)
);

-- What one step of awa.maintain_archive did: action create, drain or drop;
-- outcome created, drained, dropped, skipped_blocked (a lock not granted within
-- the bound), skipped_default (a cohort not created: DEFAULT holds rows of it
-- until the next drain), skipped_export (the export hook raised: the cohort is kept) or
-- skipped_locked (another maintain_archive runs); cohort_start names the cohort
-- (NULL for the DEFAULT partition), rows what it held.
CREATE TABLE awa.archive_outcome (
    action       text NOT NULL,
    outcome      text NOT NULL,
    cohort_start timestamptz,
    rows         bigint,
    detail       text NOT NULL,
    CHECK (false)
);

-- Internal: what awa._archive_slot copied (completion batch ids and snapshot
-- job ids of the slot, so a second call copies only what is new) and how many
-- jobs.
CREATE TYPE awa._archived AS (
    batch_ids bigint[],
    entry_ids bigint[],
    jobs      bigint
);

-- Internal: one archived job, as awa._archive_jobs expands it from its chunk
-- (awa.archived_chunks): the job's columns, its chunk's state, queue, kind
-- and expiry, and where it sits (the chunk's chunk_id, its ordinal k there).
-- A table that holds no row, as the result shapes above, so that sqlc reads
-- the views that expand chunks.
CREATE TABLE awa._archived_job (
    job_id       bigint,
    queue        text,
    priority     smallint,
    kind         text,
    state        awa.job_state,
    args         jsonb,
    attempt      int,
    max_attempts int,
    run_lease    bigint,
    run_at       timestamptz,
    created_at   timestamptz,
    finalized_at timestamptz,
    tags         text[],
    metadata     jsonb,
    errors       jsonb,
    expires_at   timestamptz,
    chunk_id     bigint,
    k            bigint,
    CHECK (false)
);

-- What awa.erase_job did in one plane: the plane's name (ready, done, deferred,
-- parked, dlq, archive, progress, callbacks) and how many rows it rewrote.
CREATE TABLE awa.erasure_result (
    plane text   NOT NULL,
    rows  bigint NOT NULL,
    CHECK (false)
);

-- A queue's pause state, as awa.pause_queue, awa.resume_queue and
-- awa.paused_queues report it: paused_at is NULL when it is not paused.
CREATE TABLE awa.queue_pause_state (
    queue     text        NOT NULL,
    paused    boolean     NOT NULL,
    paused_at timestamptz,
    CHECK (false)
);

-- What awa.queue_drained found for a queue: drained is true when none of
-- available (a committed job waiting to be claimed, the queue paused or not),
-- running (an open attempt, one waiting for its callback in sequence
-- included) and due (a scheduled or retryable job whose time has come, not
-- yet promoted) holds. Parked jobs (waiting_external with no attempt) do not
-- count.
CREATE TABLE awa.queue_drain (
    queue     text    NOT NULL,
    drained   boolean NOT NULL,
    available boolean NOT NULL,
    running   boolean NOT NULL,
    due       boolean NOT NULL,
    CHECK (false)
);

-- One job of a listing (awa.list_jobs) or lookup (awa.get_job): the columns of
-- awa.jobs, then expires_at, when the archive drops the job (NULL while it is
-- not archived). A page is newest first; its last id is the next page's
-- cursor (docs/storage.md, "Paging").
CREATE TABLE awa.job_listing (
    id           bigint NOT NULL,
    queue        text NOT NULL,
    priority     smallint NOT NULL,
    kind         text NOT NULL,
    state        awa.job_state NOT NULL,
    args         jsonb NOT NULL,
    attempt      int NOT NULL,
    max_attempts int NOT NULL,
    run_lease    bigint NOT NULL,
    run_at       timestamptz NOT NULL,
    created_at   timestamptz NOT NULL,
    claimed_at   timestamptz,
    finalized_at timestamptz,
    tags         text[] NOT NULL,
    metadata     jsonb NOT NULL,
    errors       jsonb,
    dlq          boolean NOT NULL,
    progress     jsonb,
    progress_at  timestamptz,
    expires_at   timestamptz,
    CHECK (false)
);

-- A schedule the maintenance leader must evaluate (awa.periodic_jobs_due):
-- its next fire time has come, or it has none yet (next_run_at NULL). now is
-- the database's clock at the call, which the leader computes from.
CREATE TABLE awa.periodic_due (
    name        text        NOT NULL,
    revision    bigint      NOT NULL,
    schedule    text        NOT NULL,
    timezone    text        NOT NULL,
    missed      text        NOT NULL,
    next_run_at timestamptz,
    now         timestamptz NOT NULL,
    CHECK (false)
);

-- What awa.fire_periodic_job did: fired (job_id enqueued for fire_at),
-- scheduled (next_run_at set, no job) or stale (the schedule changed, was
-- paused, deleted or fired by another caller: nothing written).
CREATE TABLE awa.periodic_fire (
    name        text        NOT NULL,
    outcome     text        NOT NULL,
    job_id      bigint,
    fire_at     timestamptz,
    next_run_at timestamptz,
    CHECK (false)
);

-- What a bulk operation (awa.bulk_cancel_jobs, awa.bulk_retry_jobs) did to one
-- job it selected: applied (state: the job's new state), or skipped (the job
-- changed state between the selection and the act; detail says why).
CREATE TABLE awa.bulk_result (
    job_id  bigint        NOT NULL,
    outcome text          NOT NULL,
    state   awa.job_state,
    detail  text,
    CHECK (false)
);

-- What awa.insert_unique_jobs (and awa.insert_unique_job,
-- awa.insert_staged_unique_jobs) did with one job: duplicate false, the new
-- job; duplicate true, the job that holds its uniqueness key in the key's
-- states (its id and state as of the insert), and nothing was inserted. The
-- columns of awa.inserted_job, then the flag (awa.inserted_job is released
-- and read column by column by 0.1.0 drivers: it keeps its shape).
CREATE TABLE awa.insert_outcome (
    id        bigint NOT NULL,
    state     awa.job_state NOT NULL,
    queue     text NOT NULL,
    priority  smallint NOT NULL,
    kind      text NOT NULL,
    run_at    timestamptz NOT NULL,
    duplicate boolean NOT NULL,
    CHECK (false)
);

-- What awa.cleanup_unique_keys removed for one job history no longer has:
-- its key row (displaced false: the key is free, as the next insert of it
-- would have found), or its record as a displaced holder (displaced true).
CREATE TABLE awa.unique_key_cleanup (
    job_id     bigint  NOT NULL,
    unique_key bytea   NOT NULL,
    displaced  boolean NOT NULL,
    CHECK (false)
);

-- One queue's claimable backlog, as awa.queue_depths reports it: available
-- jobs (counted up to a limit per lane: available_capped says a lane reached
-- it), the earliest run_at of the jobs counted (NULL when none is available)
-- and whether the queue is paused.
CREATE TABLE awa.queue_depth (
    queue            text        NOT NULL,
    available        bigint      NOT NULL,
    available_capped boolean     NOT NULL,
    oldest_run_at    timestamptz,
    paused           boolean     NOT NULL,
    CHECK (false)
);

-- One queue's flow-control options, as awa.queue_limits reports them
-- (awa.configure_queue sets them; NULL: not set): the rate limit's
-- per_second and burst, max_depth, and the per-key concurrency (key path,
-- default limit, per-key overrides).
CREATE TABLE awa.queue_limit (
    queue              text   NOT NULL,
    rate_per_second    float8,
    rate_burst         int,
    max_depth          int,
    concurrency_key    text,
    concurrency_limit  int,
    concurrency_limits jsonb,
    CHECK (false)
);

-- One queue of awa.queues_ready that a claim may find work in: ready (a
-- committed job is known to wait, as awa.queue_pending says) and, for a
-- rate-limited queue whose bucket is empty, wait_for: how long until its
-- next token (awa.queue_readiness).
CREATE TABLE awa.ready_queue (
    queue    text    NOT NULL,
    ready    boolean NOT NULL,
    wait_for interval,
    CHECK (false)
);
