-- awa._cancel_parked(job_id, reason, now): cancels the job if it is parked
-- (its awa.external_waits row deleted, a cancelled snapshot written): the
-- applied row, or NULL when it is not parked. Waits for the row's lock: a
-- resolver or the timeout rescue holding it wins, and the row is gone.
-- Called by awa.cancel_job only, wherever it may find the job parked.
CREATE FUNCTION awa._cancel_parked(p_job_id bigint, p_reason text, p_now timestamptz)
RETURNS awa.finalize_result
LANGUAGE plpgsql
AS $$
DECLARE
    v_w awa.external_waits;
BEGIN
    DELETE FROM awa.external_waits w WHERE w.job_id = p_job_id RETURNING * INTO v_w;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    RETURN ROW(p_job_id, v_w.run_lease, 'applied'::awa.finalize_outcome,
               awa._route_parked(v_w, 'cancel', NULL, p_reason, NULL, p_now));
END;
$$;
