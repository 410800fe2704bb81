-- awa._park_closed(closed, now): parks attempts just closed by
-- awa._close_claims (closure outcome 'parked'). Each must have registered a
-- callback (awa.register_callback), else AW022 and the caller's transaction
-- is rolled back (nothing written). A callback still unresolved moves the
-- job, with the callback's token and timeout, into awa.external_waits
-- (waiting_external); one already resumed (the callback came before the
-- park) sends the job straight back to a ready row, as awa.resume_external
-- of a parked job would. The callbacks rows are deleted either way.
-- Called by awa._finalize (awa.park_jobs) only, under the attempts'
-- claim_batch locks: a resolution of the same token waits, then finds the
-- job parked.
CREATE FUNCTION awa._park_closed(p_closed awa._closed_claim[], p_now timestamptz)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
AS $$
DECLARE
    v_c awa._closed_claim;
    v_r awa.ready_entries[];
    v_w awa.external_waits;
    v_x awa.callbacks;
BEGIN
    -- Every parked job's body in one read of both planes, each batch row
    -- expanded once (awa._ready_at), not a read per job.
    v_r := ARRAY(SELECT r FROM awa._ready_at(ARRAY(SELECT c.ready_slot FROM unnest(p_closed) AS c),
                                             ARRAY(SELECT c.lane_id FROM unnest(p_closed) AS c),
                                             ARRAY(SELECT c.lane_seq FROM unnest(p_closed) AS c)) AS r);
    FOREACH v_c IN ARRAY p_closed LOOP
        DELETE FROM awa.callbacks x WHERE x.job_id = v_c.job_id AND x.run_lease = v_c.run_lease RETURNING * INTO v_x;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'awa: job % (run_lease %) parks without a registered callback', v_c.job_id, v_c.run_lease
                USING ERRCODE = 'AW022', HINT = 'call awa.register_callback in the attempt before parking it';
        END IF;
        SELECT r.job_id, v_x.callback_id, v_x.timeout_at, p_now, v_c.run_lease, r.attempt, r.max_attempts,
               r.priority, r.queue, r.kind, r.args, r.tags, r.metadata, r.errors, r.created_at, r.run_at
        INTO v_w
        FROM unnest(v_r) AS r
        WHERE r.lane_id = v_c.lane_id AND r.lane_seq = v_c.lane_seq AND r.ready_slot = v_c.ready_slot;
        IF v_x.resumed_at IS NULL THEN
            INSERT INTO awa.external_waits SELECT v_w.*;
            RETURN QUERY SELECT v_c.job_id, v_c.run_lease, 'applied'::awa.finalize_outcome,
                                'waiting_external'::awa.job_state;
        ELSE
            RETURN QUERY SELECT v_c.job_id, v_c.run_lease, 'applied'::awa.finalize_outcome,
                                awa._route_parked(v_w, 'resume', v_x.result, NULL, NULL, p_now);
        END IF;
    END LOOP;
END;
$$;
