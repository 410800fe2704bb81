-- awa.take_callback_result(job_id, run_lease, claim_slot, receipt_id,
-- callback_id): a handler waiting in sequence for its callback asks whether
-- it was resumed. status 'resumed': result is the payload of
-- awa.resume_external, handed over once (the registration is deleted, the
-- job shows running again); 'waiting': not yet; 'stale': the attempt is
-- closed (a callback completed, failed or retried it, an operator cancelled
-- it, a rescue or the callback timeout closed it) or the token is not this
-- attempt's current one: the handler should return. Writes only when it
-- hands a result over. The Go driver polls it (and wakes on the control
-- channel's 'resume:<job_id>:<run_lease>'). docs/storage.md, "Callbacks".
-- Locks: awa._attempt_guard's.
-- Errors: AW010 a NULL argument.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.take_callback_result(
    p_job_id      bigint,
    p_run_lease   bigint,
    p_claim_slot  int,
    p_receipt_id  bigint,
    p_callback_id uuid
)
RETURNS SETOF awa.callback_wait
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_x awa.callbacks;
BEGIN
    PERFORM awa._require_read_committed('awa.take_callback_result');
    IF p_job_id IS NULL OR p_run_lease IS NULL OR p_claim_slot IS NULL OR p_receipt_id IS NULL
       OR p_callback_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id, run_lease, claim_slot, receipt_id and callback_id must not be null'
            USING ERRCODE = 'AW010';
    END IF;

    IF awa._attempt_guard(p_job_id, p_run_lease, p_claim_slot, p_receipt_id) THEN
        SELECT * INTO v_x FROM awa.callbacks x
        WHERE x.callback_id = p_callback_id AND x.job_id = p_job_id AND x.run_lease = p_run_lease;
        IF FOUND AND v_x.resumed_at IS NULL THEN
            RETURN QUERY SELECT p_job_id, p_run_lease, 'waiting'::text, NULL::jsonb;
            RETURN;
        ELSIF FOUND THEN
            DELETE FROM awa.callbacks x WHERE x.callback_id = p_callback_id;
            RETURN QUERY SELECT p_job_id, p_run_lease, 'resumed'::text, v_x.result;
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT p_job_id, p_run_lease, 'stale'::text, NULL::jsonb;
END;
$$;
