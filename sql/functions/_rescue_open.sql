-- awa._rescue_open(outcome, message, open, now): closes the open attempts
-- `open` (rows of awa._open_receipts, in order) through the retry path of
-- awa._finalize, with closure outcome `outcome` and `message` appended to
-- each job's errors: the stale-heartbeat rescue's body (the deadline rescue
-- re-checks its candidates under their locks and calls awa._finalize itself).
-- Locks: those of awa._close_claims, which re-checks each attempt under its
-- batch's lock (an attempt finalized meanwhile is reported stale).
-- Called by awa.rescue_stale_claims.
CREATE FUNCTION awa._rescue_open(p_outcome text, p_message text, p_open awa._open_receipts[], p_now timestamptz)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
AS $$
BEGIN
    IF cardinality(p_open) > 0 THEN
        RETURN QUERY
        SELECT * FROM awa._finalize('retry', p_outcome,
                                    ARRAY(SELECT o.job_id FROM unnest(p_open) AS o),
                                    ARRAY(SELECT o.run_lease FROM unnest(p_open) AS o),
                                    ARRAY(SELECT o.issued_slot FROM unnest(p_open) AS o),
                                    ARRAY(SELECT o.receipt_id FROM unnest(p_open) AS o),
                                    array_fill(p_message, ARRAY[cardinality(p_open)]), NULL, p_now);
    END IF;
END;
$$;
