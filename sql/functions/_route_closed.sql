-- awa._route_closed(closed, action, messages, run_ats, now): sends attempts
-- just closed by awa._close_claims to their next place, by action:
--   snooze  -> deferred_jobs 'scheduled' at run_ats[ord]; the attempt is not counted
--   retry   -> deferred_jobs 'retryable' at run_ats[ord] or the backoff, with the
--              error appended; when attempts are exhausted, failed (or the DLQ)
--   fail    -> failed terminal snapshot in done_entries, or dlq_entries when the
--              queue has the DLQ on
--   cancel  -> cancelled terminal snapshot in done_entries
--   complete_external -> completed terminal snapshot in done_entries, the
--              callback's payload (messages[ord] as JSON, may be NULL) in
--              metadata.callback_result; the progress checkpoint deleted
-- messages[ord] is the error or reason of item ord (may be NULL for cancel).
-- Terminal snapshots go to the ready slot of the job's ready row (a per-row
-- one or a batch item: awa._ready_at), so queue prune reclaims them together. Returns one applied result per closed item. A retry
-- or snooze may NOTIFY the maintenance leader (awa._wake_promoter).
-- Called by awa._finalize only.
CREATE FUNCTION awa._route_closed(
    p_closed   awa._closed_claim[],
    p_action   text,
    p_messages text[],
    p_run_ats  timestamptz[],
    p_now      timestamptz
)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
-- One generic plan per session: a custom plan of the routing statement (its
-- joins over every ready partition) took 3 ms to plan, the statement 1 ms to
-- run, and the plan cache kept choosing custom plans.
SET plan_cache_mode = force_generic_plan
-- That plan is made once, maybe while a plane is nearly empty: sequential
-- scans off, so it keeps probing the ready rows' lane indexes as they grow.
SET enable_seqscan = off
AS $$
BEGIN
    RETURN QUERY
    WITH c AS (
        SELECT c.ord, c.job_id, c.run_lease, r.ready_slot, r.max_attempts, r.priority, r.queue, r.kind,
               r.args, r.tags, r.created_at, r.run_at,
               CASE WHEN p_action = 'complete_external' AND p_messages[c.ord] IS NOT NULL
                    THEN r.metadata || jsonb_build_object('callback_result', p_messages[c.ord]::jsonb)
                    ELSE r.metadata END AS metadata,
               CASE WHEN p_action = 'snooze' THEN r.attempt ELSE r.attempt + 1 END AS attempt,
               CASE
                   WHEN p_action IN ('snooze', 'complete_external')
                        OR (p_action = 'cancel' AND p_messages[c.ord] IS NULL) THEN r.errors
                   ELSE coalesce(r.errors, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
                            'attempt', r.attempt + 1, 'at', p_now,
                            'error', coalesce(p_messages[c.ord], 'no error message')))
               END AS errors,
               CASE
                   WHEN p_action = 'snooze' THEN 'scheduled'
                   WHEN p_action = 'cancel' THEN 'cancelled'
                   WHEN p_action = 'complete_external' THEN 'completed'
                   WHEN p_action = 'retry' AND r.attempt + 1 < r.max_attempts THEN 'retryable'
                   WHEN coalesce(m.dlq_enabled, false) THEN 'dlq'
                   ELSE 'failed'
               END AS dest,
               CASE
                   WHEN p_run_ats[c.ord] IS NOT NULL THEN p_run_ats[c.ord]
                   WHEN p_action = 'retry' AND r.attempt + 1 < r.max_attempts THEN
                       awa._retry_backoff(r.attempt + 1, c.job_id, c.run_lease, p_now)
               END AS next_run_at
        FROM unnest(p_closed) AS c
        -- Both planes by position, each batch row expanded once for all its
        -- closed jobs (awa._ready_at).
        JOIN awa._ready_at(ARRAY(SELECT x.ready_slot FROM unnest(p_closed) AS x),
                           ARRAY(SELECT x.lane_id FROM unnest(p_closed) AS x),
                           ARRAY(SELECT x.lane_seq FROM unnest(p_closed) AS x)) AS r
          ON r.lane_id = c.lane_id AND r.lane_seq = c.lane_seq AND r.ready_slot = c.ready_slot
        LEFT JOIN awa.queue_meta m ON m.queue = r.queue
    ),
    to_deferred AS (
        INSERT INTO awa.deferred_jobs (
            job_id, state, run_at, run_lease, attempt, max_attempts, priority, queue, kind, args,
            tags, metadata, errors, created_at)
        SELECT c.job_id, c.dest::awa.job_state, c.next_run_at, c.run_lease, c.attempt, c.max_attempts,
               c.priority, c.queue, c.kind, c.args, c.tags, c.metadata, c.errors, c.created_at
        FROM c WHERE c.dest IN ('scheduled', 'retryable')
    ),
    to_done AS (
        INSERT INTO awa.done_entries (
            ready_slot, job_id, run_lease, state, attempt, max_attempts, priority, queue, kind, args,
            tags, metadata, errors, created_at, run_at, finalized_at)
        SELECT c.ready_slot, c.job_id, c.run_lease, c.dest::awa.job_state, c.attempt, c.max_attempts,
               c.priority, c.queue, c.kind, c.args, c.tags, c.metadata, c.errors, c.created_at, c.run_at, p_now
        FROM c WHERE c.dest IN ('failed', 'cancelled', 'completed')
    ),
    -- By key (= ANY), not a join: the generic plan guesses the closed rows'
    -- count and could hash them and scan all of attempt_state.
    cleared AS (
        DELETE FROM awa.attempt_state s
        WHERE s.job_id = ANY (ARRAY(SELECT c.job_id FROM c WHERE c.dest = 'completed'))
    ),
    to_dlq AS (
        INSERT INTO awa.dlq_entries (
            job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags, metadata,
            errors, created_at, run_at, failed_at)
        SELECT c.job_id, c.run_lease, c.attempt, c.max_attempts, c.priority, c.queue, c.kind, c.args,
               c.tags, c.metadata, c.errors, c.created_at, c.run_at, p_now
        FROM c WHERE c.dest = 'dlq'
    )
    SELECT c.job_id, c.run_lease, 'applied'::awa.finalize_outcome,
           (CASE c.dest WHEN 'dlq' THEN 'failed' ELSE c.dest END)::awa.job_state
    FROM c
    ORDER BY c.ord;
    -- A retry or snooze due before every job already waiting wakes the leader.
    IF p_action IN ('retry', 'snooze') THEN
        PERFORM awa._wake_promoter(ARRAY(SELECT c.job_id FROM unnest(p_closed) AS c));
    END IF;
END;
$$;
