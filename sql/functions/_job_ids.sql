-- awa._job_ids(n): the ids of the n jobs of one insert call, in input order
-- (docs/storage.md, "Job ids"). One job: awa._next_job_id, from this
-- transaction's block. More: ceil(n / 1,024) fresh blocks of awa.job_id_seq,
-- numbered in order (job k of the call is the ((k - 1) / 1024 + 1)th block's
-- first id + (k - 1) % 1024), so a call's ids are dense and each run of
-- 1,024 is one block; and the transaction's single-insert block is closed
-- (awa._job_id_block_key cleared), so a later single insert draws a block
-- above these and ids follow call order within a transaction.
-- No lock but the sequence's. Called by awa.insert_jobs and
-- awa.insert_unique_jobs.
CREATE FUNCTION awa._job_ids(p_n int)
RETURNS bigint[]
LANGUAGE plpgsql
AS $$
DECLARE
    v_firsts bigint[];
BEGIN
    IF p_n = 1 THEN
        RETURN ARRAY[awa._next_job_id()];
    END IF;
    v_firsts := ARRAY(SELECT nextval('awa.job_id_seq') FROM generate_series(1, (p_n + 1023) / 1024) ORDER BY 1);
    PERFORM set_config(awa._job_id_block_key(), '', true);
    RETURN ARRAY(SELECT v_firsts[k / 1024 + 1] + k % 1024 FROM generate_series(0, p_n - 1) AS k ORDER BY k);
END;
$$;
