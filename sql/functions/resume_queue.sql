-- awa.resume_queue(queue): resumes a paused queue and wakes its workers at
-- once: on commit, the NOTIFY on the queue's channel ("awa:<queue>") that an
-- insert sends, so listening workers claim without waiting for their poll.
-- Idempotent: resuming a queue that is not paused changes nothing (and
-- notifies nothing). Returns the queue's pause state (not paused).
-- Locks: the queue's pause row (DELETE).
-- Errors: AW002 queue NULL or a name no queue can have.
-- Called by operators (awa queues resume, Driver.ResumeQueue).
CREATE FUNCTION awa.resume_queue(p_queue text)
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
    DELETE FROM awa.queue_pauses p WHERE p.queue = p_queue;
    IF FOUND THEN
        PERFORM pg_notify('awa:' || p_queue, '');
    END IF;
    RETURN QUERY SELECT p_queue, false, NULL::timestamptz;
END;
$$;
