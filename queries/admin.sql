-- Operator surfaces.

-- name: QueueCounts :many
SELECT * FROM awa.queue_counts(sqlc.narg(queue)::text);

-- name: CancelJob :many
SELECT * FROM awa.cancel_job(sqlc.arg(job_id)::bigint, sqlc.narg(reason)::text, sqlc.narg(now)::timestamptz);

-- name: ConfigureQueue :one
SELECT * FROM awa.configure_queue(sqlc.arg(queue)::text, sqlc.arg(opts)::jsonb);

-- name: RetryDLQJob :one
SELECT * FROM awa.retry_dlq_job(sqlc.arg(job_id)::bigint, sqlc.narg(run_at)::timestamptz,
                                sqlc.narg(now)::timestamptz);

-- name: PurgeDLQ :many
SELECT * FROM awa.purge_dlq(sqlc.narg(queue)::text, sqlc.narg(failed_before)::timestamptz,
                            sqlc.narg(job_ids)::bigint[], sqlc.arg(max)::int);

-- Table statistics: cumulative activity and size of every table in schema awa,
-- from pg_stat_user_tables (ring children, partitioned parents, control and
-- backlog tables). What the demo reports to show where dead tuples come from.

-- name: TableStats :many
SELECT s.relname::text AS table_name,
       s.n_tup_ins::bigint AS n_tup_ins, s.n_tup_upd::bigint AS n_tup_upd,
       s.n_tup_hot_upd::bigint AS n_tup_hot_upd, s.n_tup_del::bigint AS n_tup_del,
       s.n_live_tup::bigint AS n_live_tup, s.n_dead_tup::bigint AS n_dead_tup,
       pg_total_relation_size(s.relid)::bigint AS total_bytes
FROM pg_catalog.pg_stat_user_tables s
WHERE s.schemaname = 'awa'
ORDER BY s.relname;
