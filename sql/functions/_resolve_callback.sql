-- awa._resolve_callback(action, callback_id, payload, message, run_at, now):
-- the body of awa.complete_external, fail_external, retry_external and
-- resume_external (action: complete, fail, retry, resume). Exactly one
-- resolution of a token applies; every other, and any token that names no
-- attempt now (forged, superseded, already resolved, timed out, the attempt
-- closed), is 'stale' and writes nothing. Two places, in this order:
--   1. the attempt is still open (registered, not parked: its handler runs,
--      or waits in sequence): complete, fail and retry close it through
--      awa._finalize, the finalizers' guard (closure outcome
--      callback_<action>); resume records the payload for the waiting handler
--      (awa.take_callback_result) under awa._attempt_guard and notifies the
--      control channel ('resume:<job_id>:<run_lease>');
--   2. else the job is parked: its awa.external_waits row is deleted (the row
--      lock makes one resolver win) and awa._route_parked sends it on.
-- Step 2 is a statement of its own after step 1's locks: a park that held
-- the attempt's claim_batch lock has committed, and its row is seen.
-- Errors: AW010 callback_id NULL, payload over 65536 bytes as text.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- docs/storage.md, "Callbacks".
CREATE FUNCTION awa._resolve_callback(
    p_action      text,
    p_callback_id uuid,
    p_payload     jsonb,
    p_message     text,
    p_run_at      timestamptz,
    p_now         timestamptz
)
RETURNS SETOF awa.callback_outcome
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    v_now timestamptz := coalesce(p_now, now());
    v_x   awa.callbacks;
    v_w   awa.external_waits;
    v_res awa.finalize_result;
    v_size int;
    v_open boolean := false;
BEGIN
    PERFORM awa._require_read_committed('awa.' || p_action || '_external');
    IF p_callback_id IS NULL THEN
        RAISE EXCEPTION 'awa: callback_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    v_size := octet_length(p_payload::text);
    IF v_size > 65536 THEN
        RAISE EXCEPTION 'awa: payload must be at most 65536 bytes as text, got %', v_size USING ERRCODE = 'AW010';
    END IF;

    SELECT * INTO v_x FROM awa.callbacks x WHERE x.callback_id = p_callback_id;
    -- Under the attempt's lock, a statement of its own sees a resume, a take
    -- or a closer that held it: a resumed token resolves nothing more. (Not
    -- in the guard's expression: that would read with the snapshot taken
    -- before the guard waited.)
    IF FOUND AND awa._attempt_guard(v_x.job_id, v_x.run_lease, v_x.claim_slot, v_x.receipt_id) THEN
        v_open := EXISTS (SELECT 1 FROM awa.callbacks x WHERE x.callback_id = p_callback_id AND x.resumed_at IS NULL);
    END IF;
    IF v_open THEN
        IF p_action = 'resume' THEN
            UPDATE awa.callbacks x SET resumed_at = v_now, result = p_payload WHERE x.callback_id = p_callback_id;
            PERFORM pg_notify('awa:', 'resume:' || v_x.job_id || ':' || v_x.run_lease);
            RETURN QUERY SELECT p_callback_id, v_x.job_id, v_x.run_lease, 'applied'::awa.finalize_outcome,
                                'running'::awa.job_state;
            RETURN;
        END IF;
        SELECT * INTO v_res FROM awa._finalize(
            CASE p_action WHEN 'complete' THEN 'complete_external' ELSE p_action END,
            'callback_' || p_action, ARRAY[v_x.job_id], ARRAY[v_x.run_lease], ARRAY[v_x.claim_slot],
            ARRAY[v_x.receipt_id], ARRAY[CASE p_action WHEN 'complete' THEN p_payload::text ELSE p_message END],
            ARRAY[p_run_at], v_now);
        DELETE FROM awa.callbacks x WHERE x.callback_id = p_callback_id;
        RETURN QUERY SELECT p_callback_id, v_x.job_id, v_x.run_lease, v_res.outcome, v_res.state;
        RETURN;
    END IF;

    DELETE FROM awa.external_waits w WHERE w.callback_id = p_callback_id RETURNING * INTO v_w;
    IF FOUND THEN
        RETURN QUERY SELECT p_callback_id, v_w.job_id, v_w.run_lease, 'applied'::awa.finalize_outcome,
                            awa._route_parked(v_w, p_action, p_payload, p_message, p_run_at, v_now);
        RETURN;
    END IF;
    RETURN QUERY SELECT p_callback_id, v_x.job_id, v_x.run_lease, 'stale'::awa.finalize_outcome, NULL::awa.job_state;
END;
$$;
