-- awa._require_bulk_filter(function, states, queue, kind, tag, limit): the
-- checks awa.bulk_cancel_jobs and awa.bulk_retry_jobs share: a limit within
-- 1..10000 and at least one filter. Errors: AW010, naming the function.
CREATE FUNCTION awa._require_bulk_filter(p_function text, p_states awa.job_state[], p_queue text, p_kind text,
                                         p_tag text, p_limit int)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM awa._require_between('limit', p_limit, 1, 10000);
    IF p_states IS NULL AND p_queue IS NULL AND p_kind IS NULL AND p_tag IS NULL THEN
        RAISE EXCEPTION 'awa: % needs a filter (states, queue, kind or tag)', p_function USING ERRCODE = 'AW010';
    END IF;
END;
$$;
