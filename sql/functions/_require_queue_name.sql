-- awa._require_queue_name(queue): returns when queue is a name a job can have
-- (awa._queue_name_ok); otherwise raises AW002 naming it. For calls that read
-- a queue (claim, queue_pending): asked of a name no insert accepts, they
-- could only answer "nothing", forever, a silent no-op. Pure; no lock, no write.
-- Errors: AW002 a NULL or invalid queue name.
-- Called by awa.claim_ready_runtime, awa.queue_pending, awa.queue_limits and
-- awa._require_listing_filter.
CREATE FUNCTION awa._require_queue_name(p_queue text)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
AS $$
BEGIN
    IF NOT awa._queue_name_ok(p_queue) THEN
        RAISE EXCEPTION 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got %',
            coalesce(quote_literal(p_queue), 'null') USING ERRCODE = 'AW002';
    END IF;
END;
$$;
