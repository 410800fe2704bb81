-- awa._next_job_id(): the id of a job inserted alone (a call of one job),
-- from this transaction's block of awa.job_id_seq (docs/storage.md, "Job
-- ids"). The first such insert of a transaction draws a block (one nextval:
-- 1,024 ids), later ones take its next ids, and a new block is drawn when it
-- is used up, so a transaction of one job uses one id of 1,024 and one of
-- many single inserts uses them all. The last id taken is kept in a
-- transaction-local setting (awa._job_id_block_key), which a rolled-back
-- savepoint restores: ids a rolled-back subtransaction took from a block
-- drawn before it are taken again by the next inserts, for jobs of their own.
-- That is safe: every row that named the rolled-back jobs went with the
-- subtransaction, so no two jobs that exist share an id. A block ends at the
-- first multiple of 1,024 it holds: blocks start at 1 mod 1,024 (the
-- sequence starts at 1; the 0.2.0 upgrade aligns it), and if a setval moved
-- the sequence off that grid a block is used in part, never beyond its end.
-- One expression without subqueries: inlined into its callers. No lock but
-- the sequence's. Called by awa.insert_job and awa._job_ids.
CREATE FUNCTION awa._next_job_id()
RETURNS bigint
LANGUAGE sql
VOLATILE
AS $$
    SELECT set_config(awa._job_id_block_key(),
                      (CASE WHEN coalesce(nullif(current_setting(awa._job_id_block_key(), true), ''), '0')::bigint % 1024 = 0
                            THEN nextval('awa.job_id_seq')
                            ELSE current_setting(awa._job_id_block_key())::bigint + 1 END)::text,
                      true)::bigint
$$;
