-- awa._bulk_job_ids(states, queue, kind, tag, limit): the ids of up to limit
-- jobs of a filter, newest first, as awa.list_jobs lists them, page after
-- page (a listing page holds at most 1000 jobs; a bulk limit goes to 10000).
-- Locks: as awa.list_jobs (none kept). Read-only. Inputs are checked by its
-- callers (awa._require_bulk_filter) and awa.list_jobs.
-- Called by awa.bulk_cancel_jobs and awa.bulk_retry_jobs.
CREATE FUNCTION awa._bulk_job_ids(p_states awa.job_state[], p_queue text, p_kind text, p_tag text, p_limit int)
RETURNS bigint[]
LANGUAGE plpgsql
AS $$
DECLARE
    v_ids   bigint[] := '{}';
    v_page  bigint[];
    v_want  int;
    v_after bigint;
BEGIN
    LOOP
        v_want := least(p_limit - cardinality(v_ids), 1000);
        v_page := ARRAY(SELECT l.id FROM awa.list_jobs(p_states, p_queue, p_kind, p_tag, NULL, NULL, v_after, v_want) AS l);
        v_ids := v_ids || v_page;
        EXIT WHEN cardinality(v_page) < v_want OR cardinality(v_ids) >= p_limit;
        v_after := v_page[cardinality(v_page)];
    END LOOP;
    RETURN v_ids;
END;
$$;
