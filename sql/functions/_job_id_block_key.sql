-- awa._job_id_block_key(): the name of the transaction-local setting that
-- holds the last job id this transaction took from its block of
-- awa.job_id_seq for single inserts (awa._next_job_id; cleared by
-- awa._job_ids): awa.job_ids_<schema oid>, so a schema dropped and installed
-- again within one transaction starts from its own sequence.
-- One expression without subqueries: inlined into its callers, where the
-- planner folds it to a constant (the oid's text is an immutable cast).
-- Pure (given the schema). Called by awa._next_job_id and awa._job_ids.
CREATE FUNCTION awa._job_id_block_key()
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT 'awa.job_ids_' || ('awa'::regnamespace::oid)::text
$$;
