-- awa.queue_readiness(queue, now): awa.queue_pending's answer (pending,
-- ready) and, for a rate-limited queue (awa.configure_queue rate_limit) whose
-- bucket holds less than one token, wait_for: how long until it holds one
-- (ready is then false: a claim now would take nothing). NULL wait_for: no
-- rate limit, or a token is there. A claimer whose claim came back short asks
-- this instead of queue_pending, and sleeps wait_for rather than polling an
-- empty bucket (the Go runtime does).
-- Writes nothing; holds no lock past the call (the bucket is read, not locked).
-- Errors: AW002 queue NULL or a name no job can have (awa._require_queue_name).
-- Called by workers (the Go driver's Driver.QueueReadiness) and any SQL client.
CREATE FUNCTION awa.queue_readiness(p_queue text, p_now timestamptz DEFAULT NULL,
                                    OUT pending boolean, OUT ready boolean, OUT wait_for interval)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    SELECT q.pending, q.ready INTO pending, ready FROM awa.queue_pending(p_queue) AS q;
    wait_for := awa._rate_wait(p_queue, coalesce(p_now, now()));
    IF wait_for IS NOT NULL THEN
        ready := false;
    END IF;
END;
$$;
