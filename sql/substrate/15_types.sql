-- Result shapes of the public functions. They are declared as tables that can
-- never hold a row (CHECK (false)) rather than composite types, because sqlc
-- types `SETOF <table>` but not `SETOF <composite type>` nor OUT parameters;
-- functions return SETOF these, and callers use SELECT * FROM awa.fn(...).
-- NOT NULL marks the columns the functions always fill (it types them for sqlc).

-- One inserted (or promoted, or DLQ-retried) job.
CREATE TABLE awa.inserted_job (
    id       bigint NOT NULL,
    state    awa.job_state NOT NULL,
    queue    text NOT NULL,
    priority smallint NOT NULL,
    kind     text NOT NULL,
    run_at   timestamptz NOT NULL,
    CHECK (false)
);

-- One claimed job: what a worker needs to run it and to finalize it. The
-- receipt identity (claim_slot, receipt_id) and run_lease must be passed back
-- to every finalizer.
CREATE TABLE awa.claimed_job (
    id           bigint NOT NULL,
    run_lease    bigint NOT NULL,
    claim_slot   int NOT NULL,
    receipt_id   bigint NOT NULL,
    kind         text NOT NULL,
    queue        text NOT NULL,
    priority     smallint NOT NULL,
    args         jsonb NOT NULL,
    attempt      int NOT NULL,
    max_attempts int NOT NULL,
    tags         text[] NOT NULL,
    metadata     jsonb NOT NULL,
    errors       jsonb,
    created_at   timestamptz NOT NULL,
    run_at       timestamptz NOT NULL,
    claimed_at   timestamptz NOT NULL,
    deadline_at  timestamptz,
    CHECK (false)
);

-- Outcome of a guarded finalizer for one item. state is the job's new state
-- when applied (null when stale).
CREATE TABLE awa.finalize_result (
    job_id    bigint NOT NULL,
    run_lease bigint NOT NULL,
    outcome   awa.finalize_outcome NOT NULL,
    state     awa.job_state,
    CHECK (false)
);

-- Outcome of one rotate or prune attempt.
CREATE TABLE awa.ring_outcome (
    ring       text NOT NULL,
    action     text NOT NULL,
    outcome    text NOT NULL,
    slot       int,
    generation bigint,
    detail     text NOT NULL,
    CHECK (false)
);

-- Per-queue counts by state.
CREATE TABLE awa.queue_count (
    queue     text NOT NULL,
    available bigint NOT NULL,
    running   bigint NOT NULL,
    scheduled bigint NOT NULL,
    retryable bigint NOT NULL,
    completed bigint NOT NULL,
    cancelled bigint NOT NULL,
    failed    bigint NOT NULL,
    dlq       bigint NOT NULL,
    waiting_external bigint NOT NULL,
    CHECK (false)
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

-- Outcome of a leadership attempt: whether p_holder holds the lease now, who
-- holds it and until when.
CREATE TABLE awa.leader_outcome (
    name       text        NOT NULL,
    holder     uuid        NOT NULL,
    is_leader  boolean     NOT NULL,
    expires_at timestamptz NOT NULL,
    CHECK (false)
);

-- Internal: the claim batch written for one ready slot in a claim call.
CREATE TYPE awa._slot_batch AS (
    ready_slot int,
    batch_id   bigint
);
