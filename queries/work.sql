-- Claim and finalize: what a worker calls. Every finalizer takes the attempt's
-- (job_id, run_lease) and receipt (claim_slot, receipt_id) as parallel arrays.

-- name: ClaimReadyRuntime :many
SELECT * FROM awa.claim_ready_runtime(sqlc.arg(queue)::text, sqlc.arg(max)::int,
                                      sqlc.narg(instance_id)::uuid, sqlc.narg(now)::timestamptz,
                                      sqlc.narg(attempt_deadline)::interval);

-- name: CompleteJobs :many
SELECT * FROM awa.complete_jobs(sqlc.arg(job_ids)::bigint[], sqlc.arg(run_leases)::bigint[],
                                sqlc.arg(claim_slots)::int[], sqlc.arg(receipt_ids)::bigint[],
                                sqlc.narg(now)::timestamptz);

-- name: RetryJobs :many
SELECT * FROM awa.retry_jobs(sqlc.arg(job_ids)::bigint[], sqlc.arg(run_leases)::bigint[],
                             sqlc.arg(claim_slots)::int[], sqlc.arg(receipt_ids)::bigint[],
                             sqlc.arg(errors)::text[], sqlc.narg(retry_at)::timestamptz[],
                             sqlc.narg(now)::timestamptz);

-- name: SnoozeJobs :many
SELECT * FROM awa.snooze_jobs(sqlc.arg(job_ids)::bigint[], sqlc.arg(run_leases)::bigint[],
                              sqlc.arg(claim_slots)::int[], sqlc.arg(receipt_ids)::bigint[],
                              sqlc.arg(run_at)::timestamptz[], sqlc.narg(now)::timestamptz);

-- name: CancelJobs :many
SELECT * FROM awa.cancel_jobs(sqlc.arg(job_ids)::bigint[], sqlc.arg(run_leases)::bigint[],
                              sqlc.arg(claim_slots)::int[], sqlc.arg(receipt_ids)::bigint[],
                              sqlc.narg(reasons)::text[], sqlc.narg(now)::timestamptz);

-- name: FailJobs :many
SELECT * FROM awa.fail_jobs(sqlc.arg(job_ids)::bigint[], sqlc.arg(run_leases)::bigint[],
                            sqlc.arg(claim_slots)::int[], sqlc.arg(receipt_ids)::bigint[],
                            sqlc.arg(errors)::text[], sqlc.narg(now)::timestamptz);

-- name: SetProgress :many
SELECT * FROM awa.set_progress(sqlc.arg(job_id)::bigint, sqlc.arg(run_lease)::bigint, sqlc.arg(claim_slot)::int,
                               sqlc.arg(receipt_id)::bigint, sqlc.arg(progress)::jsonb, sqlc.narg(now)::timestamptz);

-- name: SetAttemptDeadline :many
SELECT * FROM awa.set_attempt_deadline(sqlc.arg(job_id)::bigint, sqlc.arg(run_lease)::bigint, sqlc.arg(claim_slot)::int,
                                       sqlc.arg(receipt_id)::bigint, sqlc.arg(deadline_at)::timestamptz,
                                       sqlc.narg(now)::timestamptz);

-- name: JobProgress :many
SELECT * FROM awa.job_progress(sqlc.arg(job_id)::bigint);

-- name: HeartbeatInstance :one
SELECT * FROM awa.heartbeat_instance(sqlc.arg(instance_id)::uuid, sqlc.narg(now)::timestamptz);

-- name: ListenQueues :exec
SELECT awa.listen_queues(sqlc.arg(queues)::text[]);

-- name: QueuePending :one
SELECT * FROM awa.queue_pending(sqlc.arg(queue)::text);

-- name: QueueReadiness :one
SELECT * FROM awa.queue_readiness(sqlc.arg(queue)::text);

-- name: QueuesReady :many
SELECT * FROM awa.queues_ready(sqlc.arg(queues)::text[]);

-- name: TransactionIsolation :one
-- The isolation level a statement on this connection runs at by default (the
-- database's or role's default_transaction_isolation).
SELECT current_setting('transaction_isolation')::text AS level;

-- name: BackendPID :one
-- The PostgreSQL backend serving this statement (the pooler probe compares it
-- across statements and client connections).
SELECT pg_backend_pid()::int AS pid;

-- name: ClosedAttempts :many
SELECT c.job_id::bigint AS job_id, c.run_lease::bigint AS run_lease
FROM awa.closed_attempts(sqlc.arg(job_ids)::bigint[], sqlc.arg(run_leases)::bigint[],
                         sqlc.arg(claim_slots)::int[], sqlc.arg(receipt_ids)::bigint[]) AS c;
