-- Callbacks: an attempt registers a callback, then parks its job or waits in
-- sequence; an external system resolves it by token (docs/callbacks.md).

-- name: RegisterCallback :many
SELECT * FROM awa.register_callback(sqlc.arg(job_id)::bigint, sqlc.arg(run_lease)::bigint,
                                    sqlc.arg(claim_slot)::int, sqlc.arg(receipt_id)::bigint,
                                    sqlc.arg(timeout)::interval, sqlc.narg(now)::timestamptz);

-- name: ParkJobs :many
SELECT * FROM awa.park_jobs(sqlc.arg(job_ids)::bigint[], sqlc.arg(run_leases)::bigint[],
                            sqlc.arg(claim_slots)::int[], sqlc.arg(receipt_ids)::bigint[],
                            sqlc.narg(now)::timestamptz);

-- name: TakeCallbackResult :many
SELECT * FROM awa.take_callback_result(sqlc.arg(job_id)::bigint, sqlc.arg(run_lease)::bigint,
                                       sqlc.arg(claim_slot)::int, sqlc.arg(receipt_id)::bigint,
                                       sqlc.arg(callback_id)::uuid);

-- name: CompleteExternal :many
SELECT * FROM awa.complete_external(sqlc.arg(callback_id)::uuid, sqlc.narg(payload)::jsonb,
                                    sqlc.narg(now)::timestamptz);

-- name: FailExternal :many
SELECT * FROM awa.fail_external(sqlc.arg(callback_id)::uuid, sqlc.narg(error)::text,
                                sqlc.narg(now)::timestamptz);

-- name: RetryExternal :many
SELECT * FROM awa.retry_external(sqlc.arg(callback_id)::uuid, sqlc.narg(error)::text,
                                 sqlc.narg(run_at)::timestamptz, sqlc.narg(now)::timestamptz);

-- name: ResumeExternal :many
SELECT * FROM awa.resume_external(sqlc.arg(callback_id)::uuid, sqlc.narg(payload)::jsonb,
                                  sqlc.narg(now)::timestamptz);
