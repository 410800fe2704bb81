-- awa.next_promotion(now): when the deferred backlog's next job is due:
-- due_at, its earliest run_at (NULL: the backlog is empty), and wait_for, how
-- long from now until then (zero when a job is due already; NULL when empty),
-- on the database's clock, so a caller on another clock can sleep wait_for.
-- The maintenance leader sleeps that long (capped) after each promotion
-- instead of a fixed tick, and is woken earlier by "awa:+promote"
-- (awa._wake_promoter) when a new job is due before it.
-- Reads one entry of the deferred_jobs_run_at index; writes nothing, locks
-- nothing past the call.
-- Errors: AW010 now not finite.
-- Called by the Go driver's promote service (Driver.NextPromotion) and any SQL client.
CREATE FUNCTION awa.next_promotion(p_now timestamptz DEFAULT NULL, OUT due_at timestamptz, OUT wait_for interval)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    IF NOT isfinite(coalesce(p_now, now())) THEN
        RAISE EXCEPTION 'awa: now must be a finite time, got %', p_now USING ERRCODE = 'AW010';
    END IF;
    SELECT d.run_at INTO due_at FROM awa.deferred_jobs d ORDER BY d.run_at LIMIT 1;
    IF due_at IS NOT NULL THEN
        wait_for := greatest(due_at - coalesce(p_now, now()), interval '0');
    END IF;
END;
$$;
