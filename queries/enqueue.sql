-- Enqueue: thin wrappers over the SQL functions; one statement each.

-- name: InsertJob :one
SELECT * FROM awa.insert_job(sqlc.arg(kind)::text, sqlc.arg(args)::jsonb, sqlc.arg(opts)::jsonb);

-- name: InsertJobs :many
SELECT * FROM awa.insert_jobs(sqlc.arg(kinds)::text[], sqlc.arg(args)::jsonb[], sqlc.arg(opts)::jsonb[]);
