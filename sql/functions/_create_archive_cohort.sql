-- awa._create_archive_cohort(start): creates the archive's cohort partition
-- awa.archived_chunks_YYYYMMDDHH for expires_at in [start, start + 1 hour) (start
-- on a UTC hour), its tags' partition awa.archived_tags_YYYYMMDDHH and its
-- awa.archive_cohorts row, unless it exists. Returns the partition's name, or
-- NULL when it already existed.
-- Locks: ACCESS EXCLUSIVE on awa.archived_chunks, then awa.archived_tags,
-- and their DEFAULT partitions (as any CREATE TABLE ... PARTITION OF), under
-- the caller's lock_timeout.
-- Called by awa.maintain_archive (ahead of need, and to drain DEFAULT).
CREATE FUNCTION awa._create_archive_cohort(p_start timestamptz)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_rel text := 'archived_chunks_' || to_char(p_start AT TIME ZONE 'UTC', 'YYYYMMDDHH24');
BEGIN
    IF EXISTS (SELECT 1 FROM awa.archive_cohorts c WHERE c.cohort_start = p_start) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE awa.%I PARTITION OF awa.archived_chunks FOR VALUES FROM (%L) TO (%L)',
                   v_rel, p_start, p_start + interval '1 hour');
    EXECUTE format('CREATE TABLE awa.%I PARTITION OF awa.archived_tags FOR VALUES FROM (%L) TO (%L)',
                   awa._cohort_tags_relname(v_rel), p_start, p_start + interval '1 hour');
    INSERT INTO awa.archive_cohorts (cohort_start, cohort_end, relname, created_at)
    VALUES (p_start, p_start + interval '1 hour', v_rel, now());
    RETURN v_rel;
END;
$$;
