-- Enqueue: thin wrappers over the SQL functions; one statement each.

-- name: InsertJob :one
SELECT * FROM awa.insert_job(sqlc.arg(kind)::text, sqlc.arg(args)::jsonb, sqlc.arg(opts)::jsonb);

-- name: InsertJobs :many
SELECT * FROM awa.insert_jobs(sqlc.arg(kinds)::text[], sqlc.arg(args)::jsonb[], sqlc.arg(opts)::jsonb[]);

-- The COPY path: open the session's stage, COPY into pg_temp.awa_job_stage
-- (pgx CopyFrom, not sqlc), then insert what was staged.

-- name: OpenJobStage :exec
SELECT awa.open_job_stage();

-- name: InsertStagedJobs :many
SELECT * FROM awa.insert_staged_jobs();

-- Unique jobs: the same inserts, saying which jobs were duplicates (the
-- Driver calls these only when a job has unique options).

-- name: InsertUniqueJob :one
SELECT * FROM awa.insert_unique_job(sqlc.arg(kind)::text, sqlc.arg(args)::jsonb, sqlc.arg(opts)::jsonb);

-- name: InsertUniqueJobs :many
SELECT * FROM awa.insert_unique_jobs(sqlc.arg(kinds)::text[], sqlc.arg(args)::jsonb[], sqlc.arg(opts)::jsonb[]);

-- name: InsertStagedUniqueJobs :many
SELECT * FROM awa.insert_staged_unique_jobs();
