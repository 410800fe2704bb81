-- awa.insert_unique_job(kind, args, opts): awa.insert_job, saying whether the
-- job was a duplicate: one awa.insert_outcome, as awa.insert_unique_jobs
-- returns for a batch of one (same errors, locks and isolation rules).
-- Example: SELECT * FROM awa.insert_unique_job('report', '{"day":"2026-12-01"}',
--          '{"unique":{"by_args":true}}');
-- Called by producers and Driver.Insert with unique options.
CREATE FUNCTION awa.insert_unique_job(p_kind text, p_args jsonb DEFAULT '{}', p_opts jsonb DEFAULT '{}')
RETURNS SETOF awa.insert_outcome
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    RETURN QUERY SELECT * FROM awa.insert_unique_jobs(ARRAY[p_kind], ARRAY[p_args], ARRAY[p_opts]);
END;
$$;
