-- awa._cohort_tags_relname(relname): the name of the tags' partition of an
-- archive cohort (awa.archived_tags) given the cohort's (awa.archived_chunks):
-- archived_chunks_YYYYMMDDHH -> archived_tags_YYYYMMDDHH, and the DEFAULT
-- partitions alike. The one place of the rule. No lock, no write.
-- Called by awa._create_archive_cohort, awa.maintain_archive and
-- awa.storage_status.
CREATE FUNCTION awa._cohort_tags_relname(p_relname text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT regexp_replace(p_relname, '^archived_chunks_', 'archived_tags_')
$$;
