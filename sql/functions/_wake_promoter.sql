-- awa._wake_promoter(job_ids): after jobs job_ids were written to the
-- deferred backlog in this transaction, tells the maintenance leader that the
-- backlog's earliest due time moved earlier: a NOTIFY on "awa:+promote" (no
-- queue name has a '+') when the backlog's first row (run_at, job_id order) is
-- one of them. The leader sleeps until the earliest due time it last read
-- (awa.next_promotion), so only such a job could otherwise wait for the
-- leader's cap (MaintenanceConfig.PromoteInterval). Any other deferred insert
-- (due at or after a job already waiting, the usual case) notifies nothing,
-- so producers of scheduled jobs and retries seldom pay the NOTIFY's commit
-- serialization. One index probe (deferred_jobs_run_at) and one heap fetch.
-- A SERIALIZABLE producer skips the check and never notifies: its read of
-- the backlog's first row would take a predicate lock that concurrent
-- scheduled inserts conflict with (40001 for about 1 in 50 producer
-- transactions in the sqlrace run); its job, if it is due first, waits for the
-- leader's cap as before. (REPEATABLE READ reads its snapshot: a stale one at
-- worst misses a wake-up, which the cap bounds too.)
-- Returns whether it notified (the decision is what pgTAP can see: a NOTIFY
-- is only delivered at commit, never on rollback). Locks: none.
-- Called by the writers of deferred_jobs: awa.insert_jobs, awa._insert_unique,
-- awa._route_closed (retry, snooze), awa._route_parked (retry), awa.retry_job,
-- awa.retry_dlq_job.
CREATE FUNCTION awa._wake_promoter(p_job_ids bigint[])
RETURNS boolean
LANGUAGE plpgsql
AS $$
BEGIN
    IF current_setting('transaction_isolation') = 'serializable' THEN
        RETURN false;
    END IF;
    IF (SELECT d.job_id FROM awa.deferred_jobs d ORDER BY d.run_at, d.job_id LIMIT 1) = ANY (p_job_ids) THEN
        PERFORM pg_notify('awa:+promote', '');
        RETURN true;
    END IF;
    RETURN false;
END;
$$;
