-- awa.bulk_cancel_jobs(states, queue, kind, tag, limit, reason, now): an
-- operator cancels, during an incident, up to limit jobs matching a filter
-- (as awa.list_jobs filters: any of states, queue, kind, tag; newest first),
-- each as awa.cancel_job does: guarded like every finalizer, so a running
-- attempt's late result is stale afterwards. Returns one row per selected
-- job: applied with its new state, or skipped (it ended or changed state
-- between the selection and its cancel; detail says how). states defaults to
-- the unfinished ones; a finished state in it is refused (nothing to cancel).
-- Locks: as awa.list_jobs for the selection (awa._bulk_job_ids: pages of
-- it), then as awa.cancel_job per job, one job after another in this
-- transaction (keep limit small in a busy system: the locks of every cancel
-- are held to the commit).
-- Errors: AW010 no filter at all (queue, kind and tag NULL and states NULL),
-- limit outside 1..10000, a finished state; as awa.list_jobs for bad names.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by operators (Driver.BulkCancelJobs).
CREATE FUNCTION awa.bulk_cancel_jobs(p_states awa.job_state[] DEFAULT NULL, p_queue text DEFAULT NULL,
                                     p_kind text DEFAULT NULL, p_tag text DEFAULT NULL, p_limit int DEFAULT 1000,
                                     p_reason text DEFAULT NULL, p_now timestamptz DEFAULT NULL)
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
    v_r     awa.finalize_result;
BEGIN
    PERFORM awa._require_read_committed('awa.bulk_cancel_jobs');
    PERFORM awa._require_bulk_filter('bulk_cancel_jobs', p_states, p_queue, p_kind, p_tag, p_limit);
    IF p_states && ARRAY['completed', 'failed', 'cancelled']::awa.job_state[] THEN
        RAISE EXCEPTION 'awa: bulk_cancel_jobs cancels unfinished jobs only, got states %', p_states USING ERRCODE = 'AW010';
    END IF;
    -- Unfinished states only: no DLQ job (failed) among them.
    v_ids := awa._bulk_job_ids(coalesce(p_states, ARRAY['available', 'scheduled', 'running', 'retryable']::awa.job_state[]
                                                  || 'waiting_external'::text::awa.job_state),
                               p_queue, p_kind, p_tag, p_limit);
    FOREACH v_id IN ARRAY v_ids LOOP
        BEGIN
            SELECT * INTO v_r FROM awa.cancel_job(v_id, coalesce(p_reason, 'cancelled by operator (bulk)'), v_now);
            RETURN QUERY SELECT v_id, CASE WHEN v_r.outcome = 'applied' THEN 'applied' ELSE 'skipped' END, v_r.state,
                                CASE WHEN v_r.outcome = 'applied' THEN NULL
                                     ELSE 'its attempt was finalized meanwhile and the job went on' END;
        EXCEPTION WHEN SQLSTATE 'AW021' OR SQLSTATE 'AW020' THEN
            RETURN QUERY SELECT v_id, 'skipped'::text, NULL::awa.job_state, SQLERRM;
        END;
    END LOOP;
END;
$$;
