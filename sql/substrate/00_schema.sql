-- Schema awa: the queue substrate. Static DDL only; ring children are created by
-- awa.install_queue_storage_substrate(). See docs/storage.md for the planes.

CREATE SCHEMA IF NOT EXISTS awa;

COMMENT ON SCHEMA awa IS 'awa job queue substrate (tables, views and PL/pgSQL functions)';

-- Public job states as seen through awa.jobs. The DLQ is not a state: a DLQ job
-- shows as failed with dlq = true. waiting_external: the attempt waits for a
-- callback (docs/storage.md, "Callbacks").
CREATE TYPE awa.job_state AS ENUM (
    'scheduled', 'available', 'running', 'waiting_external', 'retryable', 'completed', 'cancelled', 'failed'
);

-- Result of a guarded finalizer for one item.
CREATE TYPE awa.finalize_outcome AS ENUM ('applied', 'stale');

-- Identity sequences. Job ids are global and drawn in blocks: each nextval of
-- awa.job_id_seq is the first id of a block of 1,024 (1, 1025, 2049, ...), which
-- one insert call or one transaction's single inserts use (awa._job_ids,
-- awa._next_job_id; docs/storage.md, "Job ids"). Claim batch ids give receipt
-- ids (receipt_id = batch_id * 1024 + item index), so one claim call may hold
-- at most 1024 jobs.
CREATE SEQUENCE awa.job_id_seq AS bigint INCREMENT BY 1024;
CREATE SEQUENCE awa.claim_batch_id_seq AS bigint;
CREATE SEQUENCE awa.completion_batch_id_seq AS bigint;
CREATE SEQUENCE awa.lane_id_seq AS int;
