-- The callback tier (issue 8): the job state waiting_external, and its count
-- in awa.queue_counts. The new value is not used by any statement of this
-- migration's transaction (PostgreSQL refuses that): views and SQL functions
-- name it as text cast at run time.
-- covers: sql/substrate/00_schema.sql
-- covers: sql/substrate/15_types.sql
ALTER TYPE awa.job_state ADD VALUE 'waiting_external' AFTER 'running';
ALTER TABLE awa.queue_count ADD COLUMN waiting_external bigint NOT NULL;
