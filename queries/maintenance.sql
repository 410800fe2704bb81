-- Maintenance: what the elected leader calls on its tickers.

-- name: PromoteDueJobs :many
SELECT * FROM awa.promote_due_jobs(sqlc.arg(max)::int, sqlc.narg(now)::timestamptz);

-- name: NextPromotion :one
SELECT * FROM awa.next_promotion();

-- name: RescueStaleClaims :many
SELECT * FROM awa.rescue_stale_claims(sqlc.arg(staleness)::interval, sqlc.arg(max)::int,
                                      sqlc.narg(now)::timestamptz);

-- name: RescueExpiredDeadlines :many
SELECT * FROM awa.rescue_expired_deadlines(sqlc.arg(max)::int, sqlc.narg(now)::timestamptz);

-- name: RotateRing :many
SELECT * FROM awa.rotate_ring(sqlc.arg(ring)::text, sqlc.narg(now)::timestamptz, sqlc.narg(min_interval)::interval);

-- name: PruneRing :many
SELECT * FROM awa.prune_ring(sqlc.arg(ring)::text, sqlc.arg(lock_timeout_ms)::int, sqlc.arg(keep_sealed)::int,
                              sqlc.arg(carry_limit)::int);

-- name: AcquireLeaderLease :one
SELECT * FROM awa.acquire_leader_lease(sqlc.arg(name)::text, sqlc.arg(holder)::uuid, sqlc.arg(ttl)::interval,
                                       sqlc.narg(now)::timestamptz);

-- name: ReleaseLeaderLease :many
SELECT * FROM awa.release_leader_lease(sqlc.arg(name)::text, sqlc.arg(holder)::uuid);

-- name: CleanupRuntimeInstances :many
SELECT * FROM awa.cleanup_runtime_instances(sqlc.arg(older_than)::interval, sqlc.narg(now)::timestamptz);

-- name: MaintenanceRoutinesDenied :many
-- Which of the named routines of schema awa the current role may not
-- execute (Client.Start checks those a maintenance leader calls).
SELECT current_user::text AS role, p.oid::regprocedure::text AS routine
FROM pg_catalog.pg_proc p
WHERE p.pronamespace = 'awa'::regnamespace
  AND p.proname = ANY (sqlc.arg(names)::text[])
  AND NOT has_function_privilege(p.oid, 'EXECUTE')
ORDER BY 1;

-- name: CleanupAttemptState :many
SELECT * FROM awa.cleanup_attempt_state(sqlc.arg(max)::int);

-- name: CleanupUniqueKeys :many
SELECT * FROM awa.cleanup_unique_keys(sqlc.arg(max)::int);

-- name: RetireIdleKeyLanes :many
SELECT * FROM awa.retire_idle_key_lanes(sqlc.arg(max)::int, sqlc.arg(idle)::interval, sqlc.narg(now)::timestamptz);

-- name: RescueExpiredCallbacks :many
SELECT * FROM awa.rescue_expired_callbacks(sqlc.arg(max)::int, sqlc.narg(now)::timestamptz);

-- name: MaintainArchive :many
SELECT * FROM awa.maintain_archive(sqlc.arg(lock_timeout_ms)::int, sqlc.arg(max_drops)::int,
                                   sqlc.narg(now)::timestamptz);
