-- awa._archived_job(job_id): the archived job with this id (no row when the
-- archive holds none), found by its chunk's id bounds: a chunk holding it has
-- max_job_id in [id, id + awa._archive_span()) and min_job_id <= id, so one
-- range probe of (max_job_id, min_job_id) per cohort, and only the chunks
-- whose ids hold it are expanded. An inlined SQL
-- function: the lookup by id of awa.job, awa._job_state, awa.get_job
-- (awa._list_jobs_sql), erase_job and retry_job. No lock beyond the caller's
-- read, no write.
CREATE FUNCTION awa._archived_job(p_job_id bigint)
RETURNS SETOF awa._archived_job
LANGUAGE sql
STABLE
AS $$
    SELECT a.*
    FROM awa.archived_chunks c
    CROSS JOIN LATERAL awa._archive_jobs(c) AS a
    WHERE c.max_job_id >= p_job_id AND c.max_job_id < p_job_id + awa._archive_span() AND c.min_job_id <= p_job_id
      AND c.job_ids @> ARRAY[p_job_id]
      AND a.job_id = p_job_id
$$;
