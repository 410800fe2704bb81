-- awa._insert_unique(jobs, opts, now): inserts validated job bodies (ids
-- drawn) of which some ask for uniqueness (opts[i].unique), and returns one
-- awa.insert_outcome per job, in input order. Each distinct key is taken once
-- (awa._take_unique_key), in key order, so two calls with keys in opposite
-- orders do not deadlock each other; a job whose key is held in its states
-- is not inserted and comes back as its holder, duplicate true; of several
-- jobs of one key in the call, the first (input order) is inserted or finds
-- the holder, the others are its duplicates. The rest are inserted as
-- awa.insert_jobs does (backlog rows, awa._append_ready).
-- A queue with a max_depth is checked first, before any key is taken
-- (awa._check_depth, AW060), so a refused call writes nothing.
-- Locks: key rows in key order, then lane locks as awa._append_ready; all
-- until commit.
-- Isolation: as awa._take_unique_key (40001 outside READ COMMITTED when a key
-- changed after the snapshot).
-- Called by awa.insert_jobs (the rows without the flag) and
-- awa.insert_unique_jobs.
CREATE FUNCTION awa._insert_unique(p_jobs awa._job_body[], p_opts jsonb[], p_now timestamptz)
RETURNS SETOF awa.insert_outcome
LANGUAGE plpgsql
AS $$
DECLARE
    v_n      int := cardinality(p_jobs);
    v_dups   awa.inserted_job[] := array_fill(NULL::awa.inserted_job, ARRAY[v_n]);
    v_new    awa._job_body[];
    v_job    awa._job_body;
    v_holder awa.inserted_job;
    v_prev   bytea;
    r        record;
BEGIN
    -- Backpressure before any key is taken, counting every job due now
    -- (duplicates included: they are not known yet).
    PERFORM awa._check_depth(o.queue, o.max_depth, j.n)
    FROM (SELECT j.queue, count(*) AS n FROM unnest(p_jobs) AS j WHERE j.run_at <= p_now GROUP BY j.queue) AS j
    JOIN awa.queue_options o ON o.queue = j.queue AND o.max_depth IS NOT NULL;

    FOR r IN
        SELECT s.i, awa._unique_key(p_jobs[s.i], p_opts[s.i] -> 'unique') AS key,
               (CASE WHEN p_opts[s.i] -> 'unique' ? 'states'
                     THEN ARRAY(SELECT jsonb_array_elements_text(p_opts[s.i] -> 'unique' -> 'states'))
                     ELSE ARRAY['scheduled', 'available', 'running', 'retryable', 'waiting_external'] END
               )::text[]::awa.job_state[] AS states
        FROM generate_subscripts(p_jobs, 1) AS s (i)
        WHERE p_opts[s.i] ? 'unique'
        ORDER BY 2, 1
    LOOP
        IF r.key IS DISTINCT FROM v_prev THEN
            v_prev := r.key;
            v_job := p_jobs[r.i];
            v_holder := awa._take_unique_key(r.key, v_job.job_id, r.states, p_now);
            IF v_holder.id IS NOT NULL THEN
                v_dups[r.i] := v_holder;
            ELSE
                -- This job holds the key: the call's later jobs of the key are its duplicates.
                v_holder := ROW(v_job.job_id, CASE WHEN v_job.run_at > p_now THEN 'scheduled' ELSE 'available' END,
                                v_job.queue, v_job.priority, v_job.kind, v_job.run_at);
            END IF;
        ELSE
            v_dups[r.i] := v_holder;
        END IF;
    END LOOP;

    v_new := ARRAY(SELECT p_jobs[s.i] FROM generate_subscripts(p_jobs, 1) AS s (i)
                   WHERE (v_dups[s.i]).id IS NULL ORDER BY s.i);

    INSERT INTO awa.deferred_jobs (
        job_id, state, run_at, run_lease, attempt, max_attempts, priority, queue, kind, args,
        tags, metadata, errors, created_at)
    SELECT j.job_id, 'scheduled', j.run_at, j.run_lease, j.attempt, j.max_attempts, j.priority, j.queue,
           j.kind, j.args, j.tags, j.metadata, j.errors, j.created_at
    FROM unnest(v_new) AS j
    WHERE j.run_at > p_now;
    IF FOUND THEN
        PERFORM awa._wake_promoter(ARRAY(SELECT j.job_id FROM unnest(v_new) AS j WHERE j.run_at > p_now));
    END IF;

    IF EXISTS (SELECT 1 FROM unnest(v_new) AS j WHERE j.run_at <= p_now) THEN
        PERFORM awa._append_ready(ARRAY(SELECT j FROM unnest(v_new) AS j WHERE j.run_at <= p_now), p_now);
    END IF;

    RETURN QUERY
    SELECT coalesce((v_dups[s.i]).id, j.job_id),
           coalesce((v_dups[s.i]).state,
                    (CASE WHEN j.run_at > p_now THEN 'scheduled' ELSE 'available' END)::awa.job_state),
           coalesce((v_dups[s.i]).queue, j.queue),
           coalesce((v_dups[s.i]).priority, j.priority),
           coalesce((v_dups[s.i]).kind, j.kind),
           coalesce((v_dups[s.i]).run_at, j.run_at),
           (v_dups[s.i]).id IS NOT NULL
    FROM generate_subscripts(p_jobs, 1) AS s (i)
    CROSS JOIN LATERAL (SELECT (p_jobs[s.i]).*) AS j
    ORDER BY s.i;
END;
$$;
