-- awa._rate_wait(queue, now): for a rate-limited queue (awa.configure_queue
-- rate_limit) whose bucket holds less than one token at now, how long until
-- it holds one; NULL when the queue has no rate limit or a token is there.
-- Reads the bucket (refilled by elapsed time, capped at the burst); locks
-- nothing, writes nothing. PL/pgSQL, not SQL: its plan is kept per session.
-- Called by awa.queue_readiness and awa.queues_ready (a claim now would take
-- nothing: they report the queue not ready, with this wait).
CREATE FUNCTION awa._rate_wait(p_queue text, p_now timestamptz)
RETURNS interval
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_tokens float8;
    v_rate   float8;
BEGIN
    SELECT least(o.rate_burst::float8,
                 b.tokens + o.rate_per_second * greatest(0, extract(epoch FROM p_now - b.refreshed_at))::float8),
           o.rate_per_second
    INTO v_tokens, v_rate
    FROM awa.queue_options o JOIN awa.queue_rate_buckets b USING (queue)
    WHERE o.queue = p_queue AND o.rate_per_second IS NOT NULL;
    IF v_tokens < 1 THEN
        RETURN make_interval(secs => (1 - v_tokens) / v_rate);
    END IF;
    RETURN NULL;
END;
$$;
