-- Operator surfaces.

-- name: QueueCounts :many
SELECT * FROM awa.queue_counts(sqlc.narg(queue)::text);

-- name: QueueDepths :many
SELECT * FROM awa.queue_depths(sqlc.arg(count_limit)::int);

-- name: CancelJob :many
SELECT * FROM awa.cancel_job(sqlc.arg(job_id)::bigint, sqlc.narg(reason)::text, sqlc.narg(now)::timestamptz);

-- name: EraseJob :many
SELECT * FROM awa.erase_job(sqlc.arg(job_id)::bigint, sqlc.arg(erase_errors)::boolean, sqlc.narg(now)::timestamptz);

-- name: ConfigureQueue :one
SELECT * FROM awa.configure_queue(sqlc.arg(queue)::text, sqlc.arg(opts)::jsonb);

-- name: RetryJob :one
SELECT * FROM awa.retry_job(sqlc.arg(job_id)::bigint, sqlc.narg(run_at)::timestamptz, sqlc.narg(now)::timestamptz);

-- name: RetryDLQJob :one
SELECT * FROM awa.retry_dlq_job(sqlc.arg(job_id)::bigint, sqlc.narg(run_at)::timestamptz,
                                sqlc.narg(now)::timestamptz);

-- name: PurgeDLQ :many
SELECT * FROM awa.purge_dlq(sqlc.narg(queue)::text, sqlc.narg(failed_before)::timestamptz,
                            sqlc.narg(job_ids)::bigint[], sqlc.arg(max)::int);

-- name: SubstrateVersion :one
SELECT awa.substrate_version()::text AS version;

-- name: StorageStatus :many
SELECT * FROM awa.storage_status(sqlc.arg(count_limit)::int);

-- name: ConfigureArchive :many
SELECT * FROM awa.configure_archive(sqlc.arg(opts)::jsonb, sqlc.narg(queue)::text);

-- name: PauseQueue :one
SELECT * FROM awa.pause_queue(sqlc.arg(queue)::text, sqlc.narg(now)::timestamptz);

-- name: ResumeQueue :one
SELECT * FROM awa.resume_queue(sqlc.arg(queue)::text);

-- name: PausedQueues :many
SELECT * FROM awa.paused_queues();

-- name: QueueLimits :many
SELECT * FROM awa.queue_limits(sqlc.narg(queue)::text);

-- name: QueueDrained :one
SELECT * FROM awa.queue_drained(sqlc.arg(queue)::text, sqlc.narg(now)::timestamptz);

-- name: ListJobs :many
SELECT * FROM awa.list_jobs(sqlc.narg(states)::text[]::awa.job_state[], sqlc.narg(queue)::text, sqlc.narg(kind)::text,
                            sqlc.narg(tag)::text, sqlc.narg(finalized_from)::timestamptz,
                            sqlc.narg(finalized_to)::timestamptz, sqlc.narg(after)::bigint, sqlc.arg(max)::int);

-- name: GetJob :many
SELECT * FROM awa.get_job(sqlc.arg(job_id)::bigint);

-- name: BulkCancelJobs :many
SELECT * FROM awa.bulk_cancel_jobs(sqlc.narg(states)::text[]::awa.job_state[], sqlc.narg(queue)::text, sqlc.narg(kind)::text,
                                   sqlc.narg(tag)::text, sqlc.arg(max)::int, sqlc.narg(reason)::text, sqlc.narg(now)::timestamptz);

-- name: BulkRetryJobs :many
SELECT * FROM awa.bulk_retry_jobs(sqlc.narg(states)::text[]::awa.job_state[], sqlc.narg(queue)::text, sqlc.narg(kind)::text,
                                  sqlc.narg(tag)::text, sqlc.arg(max)::int, sqlc.narg(run_at)::timestamptz, sqlc.narg(now)::timestamptz);

-- name: ListDLQJobs :many
SELECT * FROM awa.list_dlq_jobs(sqlc.narg(queue)::text, sqlc.narg(kind)::text, sqlc.narg(tag)::text,
                                sqlc.narg(after)::bigint, sqlc.arg(max)::int);
