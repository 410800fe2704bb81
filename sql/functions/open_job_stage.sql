-- awa.open_job_stage(): makes sure this session has its job stage, the
-- temporary table pg_temp.awa_job_stage (kind text, args jsonb default '{}',
-- opts jsonb default NULL, ord: input order), emptied at every commit. Fill
-- it with COPY (from any language, or psql's \copy), then call
-- awa.insert_staged_jobs() in the same transaction:
--   SELECT awa.open_job_stage();
--   COPY pg_temp.awa_job_stage (kind, args, opts) FROM STDIN;
--   SELECT * FROM awa.insert_staged_jobs();
-- Idempotent; the table lives as long as the session (on a connection
-- shared through a transaction-mode pooler it is simply reused).
CREATE FUNCTION awa.open_job_stage()
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF to_regclass('pg_temp.awa_job_stage') IS NULL THEN
        CREATE TEMPORARY TABLE awa_job_stage (
            kind text,
            args jsonb DEFAULT '{}',
            opts jsonb,
            ord  bigint GENERATED ALWAYS AS IDENTITY
        ) ON COMMIT DELETE ROWS;
    END IF;
END;
$$;
