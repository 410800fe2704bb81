-- awa._route_parked(wait, action, payload, message, run_at, now): sends a
-- parked job (a row just deleted from awa.external_waits) to its next plane,
-- counting the parked attempt (attempt + 1) unless it is resumed:
--   complete -> a completed snapshot in done_entries (current queue slot),
--               payload kept in metadata.callback_result; its progress
--               checkpoint (awa.attempt_state) deleted, as any success's
--   fail     -> failed snapshot, or dlq_entries when the queue has the DLQ on
--   retry    -> deferred_jobs 'retryable' at run_at or the backoff; when
--               attempts are exhausted, failed (or the DLQ)
--   cancel   -> cancelled snapshot
--   resume   -> a ready row again (available now), the attempt not counted,
--               payload in metadata.callback_result for the next run
-- message is the error or reason appended to errors (retry, fail, cancel).
-- Returns the job's new state ('failed' for the DLQ, as awa._route_closed).
-- Called by awa._resolve_callback, awa.rescue_expired_callbacks and
-- awa.cancel_job.
CREATE FUNCTION awa._route_parked(
    p_w       awa.external_waits,
    p_action  text,
    p_payload jsonb,
    p_message text,
    p_run_at  timestamptz,
    p_now     timestamptz
)
RETURNS awa.job_state
LANGUAGE plpgsql
AS $$
DECLARE
    v_meta   jsonb := CASE WHEN p_payload IS NULL THEN p_w.metadata
                           ELSE p_w.metadata || jsonb_build_object('callback_result', p_payload) END;
    v_errors jsonb := CASE WHEN p_action IN ('complete', 'resume') THEN p_w.errors
                           ELSE coalesce(p_w.errors, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
                                    'attempt', p_w.attempt + 1, 'at', p_now,
                                    'error', coalesce(p_message, 'no error message'))) END;
    v_dest   text;
BEGIN
    v_dest := CASE
        WHEN p_action = 'complete' THEN 'completed'
        WHEN p_action = 'cancel' THEN 'cancelled'
        WHEN p_action = 'resume' THEN 'available'
        WHEN p_action = 'retry' AND p_w.attempt + 1 < p_w.max_attempts THEN 'retryable'
        WHEN (SELECT m.dlq_enabled FROM awa.queue_meta m WHERE m.queue = p_w.queue) THEN 'dlq'
        ELSE 'failed'
    END;

    IF v_dest = 'available' THEN
        PERFORM awa._append_ready(ARRAY[ROW(p_w.job_id, p_w.run_lease, p_w.attempt, p_w.max_attempts, p_w.priority,
                                            p_w.queue, p_w.kind, p_w.args, p_w.tags, v_meta, v_errors,
                                            p_w.created_at, p_now)::awa._job_body], p_now);
    ELSIF v_dest = 'retryable' THEN
        INSERT INTO awa.deferred_jobs (
            job_id, state, run_at, run_lease, attempt, max_attempts, priority, queue, kind, args,
            tags, metadata, errors, created_at)
        VALUES (p_w.job_id, 'retryable',
                coalesce(p_run_at, awa._retry_backoff(p_w.attempt + 1, p_w.job_id, p_w.run_lease, p_now)),
                p_w.run_lease, p_w.attempt + 1, p_w.max_attempts, p_w.priority, p_w.queue, p_w.kind, p_w.args,
                p_w.tags, v_meta, v_errors, p_w.created_at);
        PERFORM awa._wake_promoter(ARRAY[p_w.job_id]);
    ELSIF v_dest = 'dlq' THEN
        INSERT INTO awa.dlq_entries (
            job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags, metadata,
            errors, created_at, run_at, failed_at)
        VALUES (p_w.job_id, p_w.run_lease, p_w.attempt + 1, p_w.max_attempts, p_w.priority, p_w.queue, p_w.kind,
                p_w.args, p_w.tags, v_meta, v_errors, p_w.created_at, p_w.run_at, p_now);
    ELSE
        INSERT INTO awa.done_entries (
            ready_slot, job_id, run_lease, state, attempt, max_attempts, priority, queue, kind, args,
            tags, metadata, errors, created_at, run_at, finalized_at)
        VALUES (awa._current_slot('queue'), p_w.job_id, p_w.run_lease, v_dest::awa.job_state, p_w.attempt + 1,
                p_w.max_attempts, p_w.priority, p_w.queue, p_w.kind, p_w.args, p_w.tags, v_meta, v_errors,
                p_w.created_at, p_w.run_at, p_now);
        IF v_dest = 'completed' THEN
            DELETE FROM awa.attempt_state s WHERE s.job_id = p_w.job_id;
        END IF;
    END IF;
    RETURN (CASE v_dest WHEN 'dlq' THEN 'failed' ELSE v_dest END)::awa.job_state;
END;
$$;
