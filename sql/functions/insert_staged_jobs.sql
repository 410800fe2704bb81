-- awa.insert_staged_jobs(): inserts every job of this session's job stage
-- (see awa.open_job_stage), in stage order, exactly as awa.insert_jobs would
-- (same validation, defaults, lanes and locks; 10,000 jobs per internal
-- batch, any number in all), then empties the stage. Returns one row per
-- job, in stage order. One statement: a bad job fails the call with
-- insert_jobs' SQLSTATE and nothing is inserted.
-- Errors: AW010 no stage in this session (awa.open_job_stage not called), or
-- an empty stage: the stage is emptied at every commit, so a COPY run in its
-- own transaction (autocommit) leaves nothing here, and saying nothing would
-- lose those jobs silently; otherwise those of awa.insert_jobs.
CREATE FUNCTION awa.insert_staged_jobs()
RETURNS SETOF awa.inserted_job
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
        RETURN QUERY SELECT * FROM awa.insert_jobs(v_kinds, v_args, v_opts);
    END LOOP;
    IF NOT v_any THEN
        RAISE EXCEPTION 'awa: the job stage is empty: COPY into pg_temp.awa_job_stage and call awa.insert_staged_jobs() in the same transaction (the stage is emptied at every commit)'
            USING ERRCODE = 'AW010';
    END IF;
    DELETE FROM pg_temp.awa_job_stage;
END;
$$;
