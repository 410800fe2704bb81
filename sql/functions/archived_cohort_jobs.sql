-- awa.archived_cohort_jobs(cohort): the jobs of one archive cohort, one row
-- per job in id order, as awa.job_listing rows (claimed_at, progress and
-- progress_at NULL, dlq false, expires_at the job's chunk's). cohort is a
-- partition of awa.archived_chunks (its DEFAULT included), as the export hook
-- receives it (`rel`): the archive stores jobs in chunks (docs/storage.md,
-- "History archive"), and this expands them for an exporter.
-- Locks: ACCESS SHARE on the cohort (the export hook's caller already holds
-- SHARE). Read-only.
-- Errors: AW010 cohort NULL or not a partition of awa.archived_chunks.
-- Called by export hooks (run by awa.maintain_archive as the install's
-- owner) and operators (awa_admin).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off): SQL cannot share it.
CREATE FUNCTION awa.archived_cohort_jobs(p_cohort regclass)
RETURNS SETOF awa.job_listing
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    IF p_cohort IS NULL OR NOT EXISTS (SELECT 1 FROM pg_inherits i
                                       WHERE i.inhrelid = p_cohort AND i.inhparent = 'awa.archived_chunks'::regclass) THEN
        RAISE EXCEPTION 'awa: cohort must be a partition of awa.archived_chunks, got %', coalesce(p_cohort::text, 'NULL')
            USING ERRCODE = 'AW010';
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT a.job_id, a.queue, a.priority, a.kind, a.state, a.args, a.attempt, a.max_attempts, a.run_lease,'
        ' a.run_at, a.created_at, NULL::timestamptz, a.finalized_at, a.tags, a.metadata, a.errors, false, NULL::jsonb,'
        ' NULL::timestamptz, a.expires_at'
        ' FROM %s c CROSS JOIN LATERAL awa._archive_jobs(ROW(c.*)::awa.archived_chunks) AS a ORDER BY a.job_id',
        p_cohort);
END;
$$;
