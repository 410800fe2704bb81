-- awa.pause_queue(queue, now): pauses a queue: from the commit on, a claim of
-- it claims nothing (awa.claim_ready_runtime) and awa.queue_pending reports
-- nothing pending, so workers idle on it; attempts already running finish
-- and their finalizers apply as usual; producers still insert. Other queues
-- and the rings' reclamation are not affected: the paused queue's available
-- jobs are carried forward by prune like any unworked backlog. Idempotent: a
-- paused queue stays paused since its first pause. A queue may be paused
-- before it has jobs. Returns the queue's pause state.
-- Locks: the queue's pause row (INSERT ... ON CONFLICT).
-- Errors: AW002 queue NULL or a name no queue can have.
-- Called by operators (awa queues pause, Driver.PauseQueue).
CREATE FUNCTION awa.pause_queue(p_queue text, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.queue_pause_state
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_queue IS NULL THEN
        RAISE EXCEPTION 'awa: queue must not be null' USING ERRCODE = 'AW002';
    END IF;
    PERFORM awa._require_queue_name(p_queue);
    INSERT INTO awa.queue_pauses AS p (queue, paused_at) VALUES (p_queue, coalesce(p_now, now()))
    ON CONFLICT (queue) DO NOTHING;
    RETURN QUERY SELECT p.queue, true, p.paused_at FROM awa.queue_pauses p WHERE p.queue = p_queue;
END;
$$;
