-- Test helpers (package driver/awatest): read surfaces only, never the hot path.

-- name: JobsOfKind :many
SELECT id, queue, priority, kind, state, args, attempt, max_attempts, run_at, created_at, tags, metadata, dlq
FROM awa.jobs
WHERE kind = sqlc.arg(kind)::text
ORDER BY id;
