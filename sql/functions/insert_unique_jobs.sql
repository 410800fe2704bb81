-- awa.insert_unique_jobs(kinds, args, opts): awa.insert_jobs, saying which
-- jobs were duplicates. Same arguments, validation, errors (AW0xx as
-- awa.insert_jobs; opts.unique as awa._validate_unique) and order; returns
-- one awa.insert_outcome per job, in input order (ids as awa.insert_jobs
-- gives them: awa._job_ids; a duplicate's id is left unused): the new job (duplicate
-- false), or, for a job whose uniqueness key (opts.unique) a job holds in the
-- key's states, that job (duplicate true; nothing inserted for it). Jobs
-- without opts.unique are inserted as awa.insert_jobs inserts them.
-- Why a function of its own: awa.inserted_job, which awa.insert_jobs returns,
-- is read column by column by released drivers and keeps its shape;
-- awa.insert_jobs takes opts.unique as well and returns the holder's row for a
-- duplicate, without the flag (docs/storage.md, "Unique jobs").
-- Locks: as awa._insert_unique (key rows in key order, then lanes).
-- Isolation: any; outside READ COMMITTED, 40001 when a key was taken or
-- released by a transaction that committed after the snapshot: retry. Never
-- two jobs of one key in its states, at any level.
-- Called by producers (awa.insert_unique_job, awa.insert_staged_unique_jobs,
-- Driver.Insert/InsertMany/InsertManyCopy with unique options).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now): SQL cannot share it.
CREATE FUNCTION awa.insert_unique_jobs(p_kinds text[], p_args jsonb[] DEFAULT NULL, p_opts jsonb[] DEFAULT NULL)
RETURNS SETOF awa.insert_outcome
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now  timestamptz := now();
    v_n    int := coalesce(cardinality(p_kinds), 0);
    v_jobs awa._job_body[] := '{}';
    v_job  awa._job_body;
    v_ids  bigint[];
BEGIN
    IF v_n = 0 OR v_n > 10000 THEN
        RAISE EXCEPTION 'awa: kinds must hold 1 to 10000 jobs, got %', v_n USING ERRCODE = 'AW010';
    END IF;
    IF p_args IS NOT NULL AND cardinality(p_args) <> v_n THEN
        RAISE EXCEPTION 'awa: args holds % elements for % kinds', cardinality(p_args), v_n USING ERRCODE = 'AW010';
    END IF;
    IF p_opts IS NOT NULL AND cardinality(p_opts) <> v_n THEN
        RAISE EXCEPTION 'awa: opts holds % elements for % kinds', cardinality(p_opts), v_n USING ERRCODE = 'AW010';
    END IF;
    v_ids := awa._job_ids(v_n);
    FOR i IN 1 .. v_n LOOP
        v_job := awa._validate_job(p_kinds[i], coalesce(p_args[i], CASE WHEN p_args IS NULL THEN '{}'::jsonb END),
                                   p_opts[i], v_now);
        v_job.job_id := v_ids[i];
        v_jobs := v_jobs || v_job;
    END LOOP;
    RETURN QUERY SELECT * FROM awa._insert_unique(v_jobs, p_opts, v_now);
END;
$$;
