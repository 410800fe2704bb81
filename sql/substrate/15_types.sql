-- Row types returned by the functions. Functions return SETOF these so that
-- sqlc can type them and callers use SELECT * FROM awa.fn(...).

-- One inserted (or promoted, or DLQ-retried) job.
CREATE TYPE awa.inserted_job AS (
    id       bigint,
    state    awa.job_state,
    queue    text,
    priority smallint,
    kind     text,
    run_at   timestamptz
);

-- One claimed job: what a worker needs to run it and to finalize it. The
-- receipt identity (claim_slot, receipt_id) and run_lease must be passed back
-- to every finalizer.
CREATE TYPE awa.claimed_job AS (
    id           bigint,
    run_lease    bigint,
    claim_slot   int,
    receipt_id   bigint,
    kind         text,
    queue        text,
    priority     smallint,
    args         jsonb,
    attempt      int,
    max_attempts int,
    tags         text[],
    metadata     jsonb,
    errors       jsonb,
    created_at   timestamptz,
    run_at       timestamptz,
    claimed_at   timestamptz,
    deadline_at  timestamptz
);

-- Outcome of a guarded finalizer for one item. state is the job's new state
-- when applied (null when stale).
CREATE TYPE awa.finalize_result AS (
    job_id    bigint,
    run_lease bigint,
    outcome   awa.finalize_outcome,
    state     awa.job_state
);

-- Outcome of one rotate or prune attempt.
CREATE TYPE awa.ring_outcome AS (
    ring       text,
    action     text,
    outcome    text,
    slot       int,
    generation bigint,
    detail     text
);

-- Per-queue counts by state.
CREATE TYPE awa.queue_count AS (
    queue     text,
    available bigint,
    running   bigint,
    scheduled bigint,
    retryable bigint,
    completed bigint,
    cancelled bigint,
    failed    bigint,
    dlq       bigint
);

-- Internal: a validated job body on its way into a ready row or the backlog.
CREATE TYPE awa._job_body AS (
    job_id       bigint,
    run_lease    bigint,
    attempt      int,
    max_attempts int,
    priority     smallint,
    queue        text,
    kind         text,
    args         jsonb,
    tags         text[],
    metadata     jsonb,
    errors       jsonb,
    created_at   timestamptz,
    run_at       timestamptz
);

-- Internal: an attempt closed by awa._close_claims, with where its ready row is.
CREATE TYPE awa._closed_claim AS (
    ord        int,
    job_id     bigint,
    run_lease  bigint,
    claim_slot int,
    receipt_id bigint,
    ready_slot int,
    lane_id    int,
    lane_seq   bigint,
    queue      text
);
