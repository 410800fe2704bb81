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
DECLARE
    v_now    timestamptz := coalesce(p_now, now());
    v_tokens float8;
    v_rate   float8;
BEGIN
    SELECT q.pending, q.ready INTO pending, ready FROM awa.queue_pending(p_queue) AS q;
    SELECT least(o.rate_burst::float8,
                 b.tokens + o.rate_per_second * greatest(0, extract(epoch FROM v_now - b.refreshed_at))::float8),
           o.rate_per_second
    INTO v_tokens, v_rate
    FROM awa.queue_options o JOIN awa.queue_rate_buckets b USING (queue)
    WHERE o.queue = p_queue AND o.rate_per_second IS NOT NULL;
    IF v_tokens < 1 THEN
        ready := false;
        wait_for := make_interval(secs => (1 - v_tokens) / v_rate);
    END IF;
END;
$$;
