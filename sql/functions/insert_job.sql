-- awa.insert_job(kind, args, opts): inserts one job inside the caller's
-- transaction; commit makes it visible, rollback makes it never have existed.
-- opts keys: queue (default 'default'), priority 1..4 (default 2), run_at
-- (RFC 3339; future means scheduled), max_attempts 1..1000 (default 25),
-- tags (at most 20 strings), metadata (object), unique (a uniqueness key:
-- awa._validate_unique; a duplicate returns the job holding the key, and
-- awa.insert_unique_job says so). Unknown keys and bad values
-- raise the SQLSTATEs listed in docs/errors.md and write nothing; a job due
-- now for a queue at its max_depth raises AW060 (awa._check_depth).
-- Returns the job's id, state ('available' or 'scheduled'), queue, priority,
-- kind and run_at. The id comes from this transaction's block of ids
-- (awa._next_job_id): one transaction's single inserts take consecutive ids.
-- Same locks as awa.insert_jobs.
CREATE FUNCTION awa.insert_job(p_kind text, p_args jsonb DEFAULT '{}', p_opts jsonb DEFAULT '{}')
RETURNS SETOF awa.inserted_job
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now timestamptz := now();
    v_job awa._job_body;
BEGIN
    -- The common case (plainly valid, due now) skips the batch machinery,
    -- and, with its lanes cached and free, awa._append_ready's (awa._append_one);
    -- anything else takes awa.insert_jobs for its precise errors and rules.
    -- No options ('{}', what a client sends for none) call the same checks
    -- with the options as a constant: PostgreSQL folds them, once per
    -- session, to the kind and args checks and the defaults, while the
    -- general forms are compiled again in every transaction (a one-job insert
    -- is one transaction).
    IF p_opts = '{}' THEN
        IF awa._request_plain(p_kind, p_args, '{}') THEN
            v_job := awa._build_job_body(awa._next_job_id(), p_kind, p_args, '{}', v_now);
        END IF;
    ELSIF awa._request_plain(p_kind, p_args, p_opts) THEN
        v_job := awa._build_job_body(awa._next_job_id(), p_kind, p_args, p_opts, v_now);
    END IF;
    IF v_job.job_id IS NULL THEN
        RETURN QUERY SELECT * FROM awa.insert_jobs(ARRAY[p_kind], ARRAY[p_args], ARRAY[p_opts]);
        RETURN;
    END IF;
    IF NOT awa._append_one(v_job) THEN
        PERFORM awa._append_ready(ARRAY[v_job], v_now, true);
    END IF;
    RETURN NEXT ROW(v_job.job_id, 'available', v_job.queue, v_job.priority, v_job.kind, v_job.run_at)::awa.inserted_job;
END;
$$;
