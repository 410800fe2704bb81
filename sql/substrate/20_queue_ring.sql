-- Queue ring: partitioned by ready_slot (children ready_entries_0 .. _N-1 and so
-- on, created by awa.install_queue_storage_substrate). Rows here are never
-- updated; a whole slot is reclaimed by TRUNCATE once prune has proved nothing
-- in it is live. The only DELETE is prune's, of the available jobs it moves
-- out of that slot first (awa._carry_ready).
-- The job body columns (job_id .. run_at) repeat in ready_entries,
-- done_entries, deferred_jobs and dlq_entries on purpose: each plane keeps
-- the whole body so its readers need no join, and sqlc types every table
-- from this static DDL (it reads no LIKE clause), so each is spelled out.

-- Immutable runnable rows. A job has one ready row per time it becomes runnable
-- (insert, promotion of a retry or snooze, DLQ retry). The claim that consumes
-- the row gets run_lease + 1 and attempt + 1.
CREATE TABLE awa.ready_entries (
    ready_slot   int         NOT NULL,
    lane_id      int         NOT NULL,
    lane_seq     bigint      NOT NULL,
    job_id       bigint      NOT NULL,
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
) PARTITION BY LIST (ready_slot);

-- The lane index: claims walk it from a lane's cursor, the notify rule steps
-- back in it, completions and listings find a row by its position. Not a
-- primary key: on a partitioned table that must hold the partition key,
-- which made each entry 8 bytes wider (32 against 24: 8 bytes of WAL per
-- job). A position is unique by construction (a block of the lane's pool
-- sequence, drawn under the lane's producer lock).
CREATE INDEX ready_entries_lane ON awa.ready_entries (lane_id, lane_seq);

CREATE INDEX ready_entries_job_id ON awa.ready_entries (job_id);

-- Ready rows made unclaimable without touching them (cancel of an available
-- job). Claim advances over them; they are reclaimed with their ready slot.
CREATE TABLE awa.ready_tombstones (
    ready_slot int         NOT NULL,
    lane_id    int         NOT NULL,
    lane_seq   bigint      NOT NULL,
    job_id     bigint      NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (lane_id, lane_seq, ready_slot)
) PARTITION BY LIST (ready_slot);

-- Terminal snapshots for failed and cancelled jobs, and for jobs a callback
-- completed (full body, so they can be read without the ready row). Written into the slot of the job's last ready row
-- so queue prune reclaims them with it.
CREATE TABLE awa.done_entries (
    ready_slot   int            NOT NULL,
    job_id       bigint         NOT NULL,
    run_lease    bigint         NOT NULL,
    state        awa.job_state  NOT NULL CHECK (state IN ('cancelled', 'failed', 'completed')),
    attempt      int            NOT NULL,
    max_attempts int            NOT NULL,
    priority     smallint       NOT NULL,
    queue        text           NOT NULL,
    kind         text           NOT NULL,
    args         jsonb          NOT NULL,
    tags         text[]         NOT NULL,
    metadata     jsonb          NOT NULL,
    errors       jsonb,
    created_at   timestamptz    NOT NULL,
    run_at       timestamptz    NOT NULL,
    finalized_at timestamptz    NOT NULL
) PARTITION BY LIST (ready_slot);

CREATE INDEX done_entries_job_id ON awa.done_entries (job_id);

-- Compact terminal history of successful completions: one row per completion
-- call, queue and ready slot. Items point at their ready rows by lane position;
-- awa.terminal_jobs expands them.
CREATE TABLE awa.done_completions (
    ready_slot   int         NOT NULL,
    batch_id     bigint      NOT NULL,
    queue        text        NOT NULL,
    completed_at timestamptz NOT NULL,
    job_ids      bigint[]    NOT NULL,
    run_leases   bigint[]    NOT NULL,
    lane_ids     int[]       NOT NULL,
    lane_seqs    bigint[]    NOT NULL,
    PRIMARY KEY (batch_id, ready_slot)
) PARTITION BY LIST (ready_slot);
