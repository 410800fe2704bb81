-- awa.insert_jobs(kinds, args, opts): inserts many jobs in one call, inside the
-- caller's transaction. Element i of each array describes job i; args and opts
-- may be NULL as a whole (every job gets '{}'). Jobs due now become available
-- (ready rows, FIFO per (queue, priority) in array order); jobs with a future
-- run_at are scheduled in the deferred backlog and promoted when due.
-- Returns one row per job, in input order, their ids in that order: one
-- block of 1,024 ids per 1,024 jobs, the transaction's single-insert block
-- for a call of one (awa._job_ids). A job with opts.unique whose key
-- another job holds in the key's states is not inserted: its row is that
-- job's (awa.insert_unique_jobs says which rows are duplicates).
-- Errors: AW010 for arrays of different lengths, an empty or NULL kinds array or
-- more than 10000 jobs; AW060 when the available jobs would take a queue
-- with a max_depth above it (awa._check_depth; scheduled jobs are not
-- counted nor refused); otherwise those of awa._validate_job. Any error writes
-- nothing (the call is one statement).
-- Locks: lane locks as in awa._append_ready, held until the caller commits.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.insert_jobs(p_kinds text[], p_args jsonb[] DEFAULT NULL, p_opts jsonb[] DEFAULT NULL)
RETURNS SETOF awa.inserted_job
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short statements over many partitions: JIT compilation would cost far
-- more than it saves.
SET jit = off
AS $$
DECLARE
    v_now  timestamptz := now();
    v_n    int := coalesce(cardinality(p_kinds), 0);
    v_jobs awa._job_body[] := '{}';
    v_job  awa._job_body;
    v_ids  bigint[];
    v_uniq boolean := false;
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

    -- Fast path: when every job is plainly valid and due now (no run_at), the
    -- bodies are built in one set-based query. Anything else (a bad value, a
    -- run_at) goes through awa._validate_job row by row, which raises the
    -- precise error or accepts the row with the same values.
    IF NOT EXISTS (
        SELECT 1
        FROM unnest(p_kinds, coalesce(p_args, array_fill('{}'::jsonb, ARRAY[v_n])),
                    coalesce(p_opts, array_fill(NULL::jsonb, ARRAY[v_n]))) AS u (kind, args, opts)
        WHERE NOT awa._request_plain(u.kind, u.args, u.opts)
    ) THEN
        -- awa._build_job_body is inlined: no call per row.
        v_ids := awa._job_ids(v_n);
        v_jobs := ARRAY(
            SELECT awa._build_job_body(v_ids[u.ord], u.kind, u.args, u.opts, v_now)
            FROM unnest(p_kinds, coalesce(p_args, array_fill('{}'::jsonb, ARRAY[v_n])),
                        coalesce(p_opts, array_fill(NULL::jsonb, ARRAY[v_n])))
                 WITH ORDINALITY AS u (kind, args, opts, ord)
            ORDER BY u.ord);
        -- All due now (a plain request has no run_at): no split, nothing deferred.
        PERFORM awa._append_ready(v_jobs, v_now, true);
        RETURN QUERY SELECT j.job_id, 'available'::awa.job_state, j.queue, j.priority, j.kind, j.run_at
                     FROM unnest(v_jobs) AS j;
        RETURN;
    ELSE
        v_ids := awa._job_ids(v_n);
        FOR i IN 1 .. v_n LOOP
            v_job := awa._validate_job(
                p_kinds[i],
                CASE WHEN p_args IS NULL THEN '{}'::jsonb ELSE p_args[i] END,
                CASE WHEN p_opts IS NULL THEN NULL ELSE p_opts[i] END,
                v_now);
            v_job.job_id := v_ids[i];
            v_jobs := v_jobs || v_job;
            v_uniq := v_uniq OR coalesce(p_opts[i] ? 'unique', false);
        END LOOP;
        -- Jobs asking for uniqueness (never on the fast path: awa._request_plain
        -- refuses opts.unique): a duplicate comes back as its holder's row.
        IF v_uniq THEN
            RETURN QUERY SELECT o.id, o.state, o.queue, o.priority, o.kind, o.run_at
                         FROM awa._insert_unique(v_jobs, p_opts, v_now) AS o;
            RETURN;
        END IF;
    END IF;

    -- Ready rows first: a queue at its max_depth raises before anything is written.
    IF EXISTS (SELECT 1 FROM unnest(v_jobs) AS j WHERE j.run_at <= v_now) THEN
        PERFORM awa._append_ready(ARRAY(SELECT j FROM unnest(v_jobs) AS j WHERE j.run_at <= v_now), v_now, true);
    END IF;

    INSERT INTO awa.deferred_jobs (
        job_id, state, run_at, run_lease, attempt, max_attempts, priority, queue, kind, args,
        tags, metadata, errors, created_at)
    SELECT j.job_id, 'scheduled', j.run_at, j.run_lease, j.attempt, j.max_attempts, j.priority, j.queue,
           j.kind, j.args, j.tags, j.metadata, j.errors, j.created_at
    FROM unnest(v_jobs) AS j
    WHERE j.run_at > v_now;
    -- Scheduled jobs only (FOUND: the INSERT wrote a row): wake the leader
    -- when one is due before every job already waiting.
    IF FOUND THEN
        PERFORM awa._wake_promoter(ARRAY(SELECT j.job_id FROM unnest(v_jobs) AS j WHERE j.run_at > v_now));
    END IF;

    RETURN QUERY
    SELECT j.job_id,
           (CASE WHEN j.run_at > v_now THEN 'scheduled' ELSE 'available' END)::awa.job_state,
           j.queue, j.priority, j.kind, j.run_at
    FROM unnest(v_jobs) AS j;
END;
$$;
