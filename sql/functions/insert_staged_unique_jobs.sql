-- awa.insert_staged_unique_jobs(): awa.insert_staged_jobs, saying which jobs
-- were duplicates: inserts every job of this session's job stage
-- (awa.open_job_stage) in stage order as awa.insert_unique_jobs does (10,000
-- per internal batch; a key met in an earlier batch of the stage is seen as
-- held by this transaction's job), then empties the stage. Returns one
-- awa.insert_outcome per job, in stage order. Keys are taken in key order
-- within each batch only: two stages of more than 10,000 jobs with equal
-- keys in opposite orders across batches can deadlock (40P01: retry), as
-- transactions of several awa.insert_unique_jobs calls can.
-- Errors: AW010 no stage in this session, or an empty stage (as
-- awa.insert_staged_jobs); otherwise those of awa.insert_unique_jobs. One
-- statement: nothing is inserted when it raises.
-- Runs with the caller's rights (the stage is the caller's temporary table).
-- The body is awa.insert_staged_jobs' with the unique form of the batch insert
-- on purpose: an entry point run with the caller's rights calls no internal.
-- Called by producers and Driver.InsertManyCopy with unique options.
CREATE FUNCTION awa.insert_staged_unique_jobs()
RETURNS SETOF awa.insert_outcome
LANGUAGE plpgsql
AS $$
DECLARE
    v_last  bigint := 0;
    v_kinds text[];
    v_args  jsonb[];
    v_opts  jsonb[];
    v_any   boolean := false;
BEGIN
    IF to_regclass('pg_temp.awa_job_stage') IS NULL THEN
        RAISE EXCEPTION 'awa: this session has no job stage: call awa.open_job_stage() first'
            USING ERRCODE = 'AW010';
    END IF;
    LOOP
        SELECT array_agg(s.kind ORDER BY s.ord), array_agg(s.args ORDER BY s.ord),
               array_agg(s.opts ORDER BY s.ord), max(s.ord)
        INTO v_kinds, v_args, v_opts, v_last
        FROM (SELECT * FROM pg_temp.awa_job_stage WHERE ord > v_last ORDER BY ord LIMIT 10000) AS s;
        EXIT WHEN v_kinds IS NULL;
        v_any := true;
        RETURN QUERY SELECT * FROM awa.insert_unique_jobs(v_kinds, v_args, v_opts);
    END LOOP;
    IF NOT v_any THEN
        RAISE EXCEPTION 'awa: the job stage is empty: COPY into pg_temp.awa_job_stage and call awa.insert_staged_unique_jobs() in the same transaction (the stage is emptied at every commit)'
            USING ERRCODE = 'AW010';
    END IF;
    DELETE FROM pg_temp.awa_job_stage;
END;
$$;
