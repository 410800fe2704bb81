-- awa._archive_walk_sql(states, queue, kind, tag, from, to, after): the walk
-- of awa._archive_page, as text with its filters as literals (planned for
-- them, so a time range prunes the cohorts it does not imply): rows
-- (expires_at, chunk_id, max_job_id, ids, fins) newest first by max_job_id,
-- one per chunk that may hold a job of the page (for a tag, one per tag row:
-- ids are the tagged jobs'), ids its job ids in order and fins their
-- finalization times (NULL without a range). Every terminal state, a queue
-- or a kind: one index walk ((max_job_id, min_job_id), or the queue's or
-- kind's index, states filtered); some states: one walk per state, merged;
-- a tag: one walk of awa.archived_tags (tag, max_job_id, min_job_id), the
-- chunk read only for a filter on it. With after, only
-- max_job_id < after + awa._archive_span() and min_job_id < after. NULL when
-- nothing can match (a range and no retention ever used). Reads
-- awa.archive_retention_log; no lock beyond that, no write. Called by
-- awa._archive_page and the EXPLAIN tests (sql/tests/list_jobs,
-- internal/listing).
CREATE FUNCTION awa._archive_walk_sql(p_states awa.job_state[], p_queue text, p_kind text, p_tag text,
                                      p_from timestamptz, p_to timestamptz, p_after bigint)
RETURNS text
LANGUAGE plpgsql
STABLE
-- Timestamp literals in ISO, which any DateStyle reads back.
SET datestyle = 'ISO, YMD'
AS $$
DECLARE
    v_bounds text := '';
    v_expiry text;
BEGIN
    IF p_after IS NOT NULL THEN
        v_bounds := format(' AND %%1$s.max_job_id < %s AND %%1$s.min_job_id < %s',
                           CASE WHEN p_after > 9223372036854775807 - awa._archive_span() THEN 9223372036854775807
                                ELSE p_after + awa._archive_span() END, p_after);
    END IF;
    -- A range: a job finalized in it expires in [from + r, to + r) for its
    -- retention r, and its chunk's expires_at in the same UTC hour.
    IF p_from IS NOT NULL OR p_to IS NOT NULL THEN
        SELECT string_agg(format('(%%1$s.expires_at >= %L::timestamptz AND %%1$s.expires_at < %L::timestamptz)',
                                 date_trunc('hour', coalesce(p_from, '-infinity') + g.retention, 'UTC'),
                                 date_trunc('hour', coalesce(p_to, 'infinity') + g.retention, 'UTC')
                                 + interval '1 hour'),
                          ' OR ' ORDER BY g.retention)
        INTO v_expiry
        FROM awa.archive_retention_log g;
        IF v_expiry IS NULL THEN
            RETURN NULL;
        END IF;
        v_bounds := v_bounds || ' AND (' || v_expiry || ')';
    END IF;

    IF p_tag IS NULL AND p_queue IS NULL AND p_kind IS NULL
       AND NOT p_states @> '{completed,failed,cancelled}'::awa.job_state[] THEN
        -- Some states: one index walk per state (and cohort), merged in
        -- max_job_id order. Each branch ordered itself: a branch with a WHERE
        -- is planned as a subquery of its own, and only an ordered one can be
        -- merged.
        RETURN (SELECT 'SELECT * FROM (' || string_agg(format(
                   '(SELECT c.expires_at, c.chunk_id, c.max_job_id, c.job_ids AS ids, %s AS fins'
                   ' FROM awa.archived_chunks c WHERE c.state = %L::awa.job_state%s ORDER BY 3 DESC)',
                   CASE WHEN p_from IS NOT NULL OR p_to IS NOT NULL THEN 'c.finalized_ats'
                        ELSE 'NULL::timestamptz[]' END,
                   u.s, format(v_bounds, 'c')),
                   ' UNION ALL ') || ') AS w ORDER BY 3 DESC'
                FROM (SELECT DISTINCT u.s FROM unnest(p_states) AS u (s)) AS u);
    ELSIF p_tag IS NULL THEN
        -- Every state, or a queue or kind (its index, other states
        -- filtered): one walk.
        RETURN format(
            'SELECT c.expires_at, c.chunk_id, c.max_job_id, c.job_ids AS ids, %s AS fins'
            ' FROM awa.archived_chunks c WHERE true%s%s%s ORDER BY 3 DESC',
            CASE WHEN p_from IS NOT NULL OR p_to IS NOT NULL THEN 'c.finalized_ats' ELSE 'NULL::timestamptz[]' END,
            CASE WHEN NOT p_states @> '{completed,failed,cancelled}'::awa.job_state[] THEN format(' AND c.state = ANY (%L::awa.job_state[])', p_states)
                 ELSE '' END,
            format(v_bounds, 'c'), awa._list_jobs_where('c', NULL, NULL, p_queue, p_kind, NULL, NULL, NULL, NULL));
    ELSE
        -- The tag's rows, every state in one walk; the chunk read only for a
        -- filter on its queue or kind, or its jobs' finalization times.
        RETURN format(
            'SELECT t.expires_at, t.chunk_id, t.max_job_id, %s AS ids, %s AS fins FROM awa.archived_tags t%s'
            ' WHERE t.tag = %L AND t.state = ANY (%L::awa.job_state[])%s',
            CASE WHEN p_from IS NOT NULL OR p_to IS NOT NULL
                 THEN 'ARRAY(SELECT u.id FROM unnest(c.job_ids) AS u (id) WHERE u.id = ANY (t.job_ids))'
                 ELSE 't.job_ids' END,
            CASE WHEN p_from IS NOT NULL OR p_to IS NOT NULL
                 THEN 'ARRAY(SELECT u.fin FROM unnest(c.job_ids, c.finalized_ats) AS u (id, fin)'
                      ' WHERE u.id = ANY (t.job_ids))'
                 ELSE 'NULL::timestamptz[]' END,
            CASE WHEN p_queue IS NOT NULL OR p_kind IS NOT NULL OR p_from IS NOT NULL OR p_to IS NOT NULL
                 THEN format(' CROSS JOIN LATERAL (SELECT c.job_ids, c.finalized_ats FROM awa.archived_chunks c'
                             ' WHERE c.expires_at = t.expires_at AND c.chunk_id = t.chunk_id%s) AS c',
                             awa._list_jobs_where('c', NULL, NULL, p_queue, p_kind, NULL, NULL, NULL, NULL))
                 ELSE '' END,
            p_tag, p_states, format(v_bounds, 't')) || ' ORDER BY 3 DESC';
    END IF;
END;
$$;
