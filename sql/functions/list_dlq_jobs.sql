-- awa.list_dlq_jobs(queue, kind, tag, after, limit): one page of the DLQ's
-- jobs (awa.dlq_entries), newest first (job id descending), filtered by
-- queue, kind and tag; keyset paging as awa.list_jobs (the next page is
-- after => the last id of this one; a page shorter than limit is the last).
-- Its rows are awa.list_jobs' DLQ rows (state failed, dlq true). A DLQ
-- listing of its own: awa.list_jobs with state failed also walks every
-- failed job outside the DLQ (terminal snapshots, archive), which a caller
-- filtering for the DLQ would page through whole. It walks the DLQ's
-- primary key backwards from the cursor; a filter drops rows of that walk,
-- so its cost is bounded by the DLQ, never by the other planes
-- (docs/storage.md, "Paging").
-- Locks: ACCESS SHARE on awa.dlq_entries and awa.attempt_state (plain
-- tables, no ring); read-only.
-- Isolation: any level.
-- Errors: as awa.list_jobs: AW010 limit outside 1..1000; AW002 a queue name
-- no queue can have; AW001 kind empty or over 255 characters; AW007 tag
-- empty or over 100 characters.
-- Called by operators and dashboards (awa_admin; Driver.ListDLQJobs, awa dlq
-- list).
CREATE FUNCTION awa.list_dlq_jobs(p_queue text DEFAULT NULL, p_kind text DEFAULT NULL, p_tag text DEFAULT NULL,
                                  p_after bigint DEFAULT NULL, p_limit int DEFAULT 50)
RETURNS SETOF awa.job_listing
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
-- The walk is in job order whatever the filter: a sort of the matching rows
-- (through the (queue, failed_at) index) would read every one of them.
SET enable_sort = off
SET enable_seqscan = off
AS $$
BEGIN
    PERFORM awa._require_listing_filter(p_queue, p_kind, p_tag, p_limit);
    RETURN QUERY
    SELECT x.job_id, x.queue, x.priority, x.kind, 'failed'::awa.job_state, x.args, x.attempt, x.max_attempts,
           x.run_lease, x.run_at, x.created_at, NULL::timestamptz, x.failed_at, x.tags, x.metadata, x.errors, true,
           p.progress, p.updated_at, NULL::timestamptz
    FROM awa.dlq_entries x
    -- Progress: one probe per row of the page (OFFSET 0: never a join that
    -- reads attempt_state whole).
    LEFT JOIN LATERAL (SELECT s.progress, s.updated_at FROM awa.attempt_state s WHERE s.job_id = x.job_id
                       OFFSET 0) AS p ON true
    WHERE x.job_id < coalesce(p_after, 9223372036854775807)
      AND (p_queue IS NULL OR x.queue = p_queue)
      AND (p_kind IS NULL OR x.kind = p_kind)
      AND (p_tag IS NULL OR x.tags @> ARRAY[p_tag])
    ORDER BY x.job_id DESC
    LIMIT p_limit;
END;
$$;
