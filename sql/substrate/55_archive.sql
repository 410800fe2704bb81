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

-- Archived terminal jobs, in chunks: one row holds up to 1,000 jobs of one
-- state, queue and kind that one prune copied, as parallel arrays in job id
-- order (TOAST compresses them), so a job costs a few bytes of WAL instead of
-- a row and three index entries (docs/storage.md, "History archive"). A
-- prune cuts each group at aligned job id blocks of awa._archive_span()
-- ids: every job of a chunk has an id in [min_job_id, max_job_id], a span
-- below that constant, so a chunk holding job X has max_job_id in
-- [X, X + span): the bound of every lookup by id and of every page.
-- Partitioned by expiry: expires_at is the latest finalized_at + retention of
-- its jobs, which all expire in the same hour (a chunk never spans two
-- cohorts), so a cohort (one hour of expires_at) whose end has passed holds
-- only jobs past their retention and is dropped whole. Children
-- (archived_chunks_YYYYMMDDHH and the DEFAULT partition
-- archived_chunks_default, which stays empty) are created by functions.
-- tags is NULL when no job of the chunk has a tag, else one element per job:
-- its tags as an array literal ('{}' for none). erase_job rewrites a job's
-- elements in place; retry_job removes them (the id bounds stay bounds).
-- The job body columns repeat those of done_entries on purpose, as every
-- plane's do (sql/substrate/20_queue_ring.sql says why).
CREATE TABLE awa.archived_chunks (
    expires_at    timestamptz   NOT NULL,
    state         awa.job_state NOT NULL CHECK (state IN ('completed', 'cancelled', 'failed')),
    queue         text          NOT NULL,
    kind          text          NOT NULL,
    chunk_id      bigint        NOT NULL,
    min_job_id    bigint        NOT NULL,
    max_job_id    bigint        NOT NULL,
    n             int           NOT NULL CHECK (n > 0),
    job_ids       bigint[]      NOT NULL,
    run_leases    bigint[]      NOT NULL,
    attempts      int[]         NOT NULL,
    max_attempts  int[]         NOT NULL,
    priorities    smallint[]    NOT NULL,
    args          jsonb[]       NOT NULL,
    tags          text[],
    metadata      jsonb[]       NOT NULL,
    errors        jsonb[]       NOT NULL,
    created_ats   timestamptz[] NOT NULL,
    run_ats       timestamptz[] NOT NULL,
    finalized_ats timestamptz[] NOT NULL
) PARTITION BY RANGE (expires_at);

-- One id per chunk (awa._archive_slot): tag rows and a listing's page name a
-- chunk by (expires_at, chunk_id).
CREATE SEQUENCE awa.archive_chunk_id_seq;

-- Listings (awa.list_jobs, through awa._archive_page) walk chunks newest
-- first by max_job_id and filter min_job_id inside the index (docs/storage.md,
-- "Paging"): every terminal state, one walk of (max_job_id, min_job_id); some
-- states, one walk per state of (state, ...); a queue or a kind, one walk of
-- its index, other states filtered. The first also serves a lookup by id
-- (awa._archived_job: max_job_id in [id, id + span), one probe per cohort).
-- A walk plans one index scan per cohort, so fewer walks plan faster.
-- Entries are per chunk, not per job.
CREATE INDEX archived_chunks_ids ON awa.archived_chunks (max_job_id, min_job_id);
CREATE INDEX archived_chunks_state ON awa.archived_chunks (state, max_job_id, min_job_id);
CREATE INDEX archived_chunks_queue ON awa.archived_chunks (queue, max_job_id, min_job_id);
CREATE INDEX archived_chunks_kind ON awa.archived_chunks (kind, max_job_id, min_job_id);
CREATE INDEX archived_chunks_chunk ON awa.archived_chunks (chunk_id);

-- The tags of archived jobs, one row per tag of a chunk that holds tagged
-- jobs (untagged jobs write none): the ids of its jobs that have the tag, in
-- order, and their bounds. A listing by tag walks (tag, max_job_id), every
-- state in one walk, and reads the jobs of the page from their chunk by
-- (expires_at, chunk_id). Written by the same copy as the chunks
-- (awa._archive_slot), partitioned alike (children archived_tags_YYYYMMDDHH
-- and archived_tags_default, created with the cohort and the archive's
-- DEFAULT) and dropped with its cohort.
CREATE TABLE awa.archived_tags (
    expires_at timestamptz   NOT NULL,
    tag        text          NOT NULL,
    state      awa.job_state NOT NULL,
    chunk_id   bigint        NOT NULL,
    min_job_id bigint        NOT NULL,
    max_job_id bigint        NOT NULL,
    job_ids    bigint[]      NOT NULL
) PARTITION BY RANGE (expires_at);

CREATE INDEX archived_tags_tag ON awa.archived_tags (tag, max_job_id, min_job_id);

-- awa._archive_span(): the job id span of a chunk (max_job_id - min_job_id
-- stays below it; chunks are cut at multiples of it). 1,024,000: a chunk's
-- 1,000 jobs times an id block's 1,024, so the jobs of single-insert
-- transactions, a block apart, still fill a chunk (docs/storage.md, "History
-- archive"). The one place of the constant; IMMUTABLE SQL, so the planner
-- folds it.
CREATE FUNCTION awa._archive_span()
RETURNS bigint
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT 1024000::bigint
$$;

-- awa._archive_jobs(chunk): the jobs of one chunk, one row each, in job id
-- order (an inlined SQL function: in a LATERAL join it is the unnest of the
-- chunk's arrays). The one definition of a chunk's expansion: the views,
-- awa._archived_job, awa._archive_page, erase_job and retry_job use it.
CREATE FUNCTION awa._archive_jobs(p_chunk awa.archived_chunks)
RETURNS SETOF awa._archived_job
LANGUAGE sql
STABLE
AS $$
    SELECT u.job_id, p_chunk.queue, u.priority, p_chunk.kind, p_chunk.state, u.args, u.attempt, u.max_attempts,
           u.run_lease, u.run_at, u.created_at, u.finalized_at, coalesce(u.tags::text[], '{}'), u.metadata, u.errors,
           p_chunk.expires_at, p_chunk.chunk_id, u.k
    FROM unnest(p_chunk.job_ids, p_chunk.run_leases, p_chunk.attempts, p_chunk.max_attempts, p_chunk.priorities,
                p_chunk.args, p_chunk.tags, p_chunk.metadata, p_chunk.errors, p_chunk.created_ats, p_chunk.run_ats,
                p_chunk.finalized_ats)
         WITH ORDINALITY AS u (job_id, run_lease, attempt, max_attempts, priority, args, tags, metadata, errors,
                               created_at, run_at, finalized_at, k)
$$;

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
