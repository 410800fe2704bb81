-- awa._list_jobs_where(row, finalized, id, queue, kind, tag, from, to, after):
-- the conditions of a listing's filters on one branch of its statement, as
-- SQL text (each ' AND ...', literals quoted): row names the branch's table
-- alias (its job_id, queue, kind, tags), finalized the expression of its
-- finalization time. A NULL filter adds nothing. Pure (text only): no lock,
-- no write. Timestamps are written in the caller's DateStyle
-- (awa._list_jobs_sql sets ISO). Called by awa._list_jobs_sql.
CREATE FUNCTION awa._list_jobs_where(p_row text, p_finalized text, p_id bigint, p_queue text, p_kind text,
                                     p_tag text, p_from timestamptz, p_to timestamptz, p_after bigint)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT concat(CASE WHEN p_id IS NOT NULL THEN format(' AND %s.job_id = %s', p_row, p_id) END,
                  CASE WHEN p_after IS NOT NULL THEN format(' AND %s.job_id < %s', p_row, p_after) END,
                  CASE WHEN p_queue IS NOT NULL THEN format(' AND %s.queue = %L', p_row, p_queue) END,
                  CASE WHEN p_kind IS NOT NULL THEN format(' AND %s.kind = %L', p_row, p_kind) END,
                  CASE WHEN p_tag IS NOT NULL THEN format(' AND %s.tags @> ARRAY[%L]', p_row, p_tag) END,
                  CASE WHEN p_from IS NOT NULL THEN format(' AND %s >= %L::timestamptz', p_finalized, p_from) END,
                  CASE WHEN p_to IS NOT NULL THEN format(' AND %s < %L::timestamptz', p_finalized, p_to) END)
$$;
