-- awa.bulk_retry_jobs(states, queue, kind, tag, limit, run_at, now): an
-- operator runs again, during an incident, up to limit jobs matching a
-- filter (as awa.list_jobs filters; newest first), each as awa.retry_job
-- does: a failed or cancelled job (ring, archive or DLQ) from attempt 0, a
-- scheduled or retryable one now (or at run_at). Returns one row per
-- selected job: applied with its new state, or skipped (it changed state
-- between the selection and its retry; detail says how). states defaults to
-- failed and cancelled; an unfinished state other than scheduled and
-- retryable is refused (nothing to retry).
-- Locks: as awa.list_jobs for the selection (awa._bulk_job_ids: pages of
-- it), then as awa.retry_job per job: the queue ring's rotate/prune lock is
-- held to the commit (queue-ring prunes are skipped_locked meanwhile: keep
-- limit small).
-- Errors: AW010 no filter at all, limit outside 1..10000, a state with
-- nothing to retry; as awa.list_jobs for bad names.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by operators (Driver.BulkRetryJobs).
CREATE FUNCTION awa.bulk_retry_jobs(p_states awa.job_state[] DEFAULT NULL, p_queue text DEFAULT NULL,
                                    p_kind text DEFAULT NULL, p_tag text DEFAULT NULL, p_limit int DEFAULT 1000,
                                    p_run_at timestamptz DEFAULT NULL, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.bulk_result
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now   timestamptz := coalesce(p_now, now());
    v_ids   bigint[];
    v_id    bigint;
    v_j     awa.inserted_job;
BEGIN
    PERFORM awa._require_read_committed('awa.bulk_retry_jobs');
    PERFORM awa._require_bulk_filter('bulk_retry_jobs', p_states, p_queue, p_kind, p_tag, p_limit);
    IF p_states && (ARRAY['available', 'running', 'completed']::awa.job_state[]
                    || 'waiting_external'::text::awa.job_state) THEN
        RAISE EXCEPTION 'awa: bulk_retry_jobs retries failed, cancelled, scheduled or retryable jobs only, got states %',
            p_states USING ERRCODE = 'AW010';
    END IF;
    v_ids := awa._bulk_job_ids(coalesce(p_states, ARRAY['failed', 'cancelled']::awa.job_state[]), p_queue, p_kind, p_tag,
                               p_limit);
    FOREACH v_id IN ARRAY v_ids LOOP
        BEGIN
            SELECT * INTO v_j FROM awa.retry_job(v_id, p_run_at, v_now);
            RETURN QUERY SELECT v_id, 'applied'::text, v_j.state, NULL::text;
        EXCEPTION WHEN SQLSTATE 'AW021' OR SQLSTATE 'AW020' THEN
            RETURN QUERY SELECT v_id, 'skipped'::text, NULL::awa.job_state, SQLERRM;
        END;
    END LOOP;
END;
$$;
