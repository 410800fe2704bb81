-- Periodic jobs: the operators' declarations and the maintenance leader's steps.

-- name: UpsertPeriodicJob :one
SELECT * FROM awa.upsert_periodic_job(sqlc.arg(name)::text, sqlc.arg(schedule)::text, sqlc.arg(kind)::text,
                                      sqlc.arg(args)::jsonb, sqlc.arg(opts)::jsonb, sqlc.arg(timezone)::text,
                                      sqlc.arg(missed)::text, sqlc.narg(now)::timestamptz);

-- name: DeletePeriodicJob :one
SELECT * FROM awa.delete_periodic_job(sqlc.arg(name)::text);

-- name: PausePeriodicJob :one
SELECT * FROM awa.pause_periodic_job(sqlc.arg(name)::text, sqlc.narg(now)::timestamptz);

-- name: ResumePeriodicJob :one
SELECT * FROM awa.resume_periodic_job(sqlc.arg(name)::text, sqlc.narg(now)::timestamptz);

-- name: ListPeriodicJobs :many
SELECT * FROM awa.list_periodic_jobs();

-- name: PeriodicJobsDue :many
SELECT * FROM awa.periodic_jobs_due(sqlc.narg(now)::timestamptz, sqlc.arg(max)::int);

-- name: FirePeriodicJob :one
SELECT * FROM awa.fire_periodic_job(sqlc.arg(name)::text, sqlc.arg(revision)::bigint,
                                    sqlc.narg(expected_next_run_at)::timestamptz, sqlc.narg(fire_at)::timestamptz,
                                    sqlc.arg(new_next_run_at)::timestamptz, sqlc.narg(now)::timestamptz);

-- name: RejectPeriodicSchedule :many
SELECT * FROM awa.reject_periodic_schedule(sqlc.arg(name)::text, sqlc.arg(revision)::bigint, sqlc.arg(error)::text,
                                           sqlc.narg(now)::timestamptz);
