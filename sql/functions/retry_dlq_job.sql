-- awa.retry_dlq_job(job_id, run_at, now): takes a job out of the DLQ and runs
-- it again from attempt 0: available now, or scheduled when run_at is in the
-- future (notifying awa:+promote when it is the backlog's first job,
-- awa._wake_promoter). run_lease is kept (never reset), so finalizers of the attempts
-- before the DLQ stay stale. Errors are kept.
-- Errors: AW010 job_id NULL; AW020 not in the DLQ (and no such job); AW021 the
-- job exists but is not in the DLQ, or another job holds its unique key in
-- its states (awa._retake_unique_key).
-- Locks: first the queue ring's rotate/prune lock (ring, hashtext('queue')),
-- waited for, as awa.retry_job: an erasure (awa.erase_job) holds it from
-- before it reads the job's state to its commit, so the DLQ row is moved
-- either before the erasure (which then cancels the job where it went) or
-- after it (erased); never between its rewrite of the ring and of the DLQ,
-- which left the new ready row with the job's data. Then its unique key row
-- if any (awa._retake_unique_key), the DLQ row (DELETE), then lane locks as awa._append_ready; a job not in the DLQ: as
-- awa._job_state.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.retry_dlq_job(p_job_id bigint, p_run_at timestamptz DEFAULT NULL, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.inserted_job
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves (and hold partition locks while it compiles).
SET jit = off
AS $$
DECLARE
    v_now   timestamptz := coalesce(p_now, now());
    v_d     awa.dlq_entries;
    v_job   awa._job_body;
    v_state awa.job_state;
BEGIN
    PERFORM awa._require_read_committed('awa.retry_dlq_job');
    IF p_job_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    PERFORM pg_advisory_xact_lock(awa._lock_key('ring'), hashtext('queue'));

    -- Its unique key first (awa._retake_unique_key), so that a refusal has
    -- written nothing.
    IF EXISTS (SELECT 1 FROM awa.dlq_entries d WHERE d.job_id = p_job_id) THEN
        PERFORM awa._retake_unique_key(p_job_id, v_now);
    END IF;
    DELETE FROM awa.dlq_entries WHERE job_id = p_job_id RETURNING * INTO v_d;
    IF NOT FOUND THEN
        v_state := awa._job_state(p_job_id);
        IF v_state IS NOT NULL THEN
            RAISE EXCEPTION 'awa: job % is not in the DLQ (it is %)', p_job_id, v_state USING ERRCODE = 'AW021';
        END IF;
        RAISE EXCEPTION 'awa: job % not found', p_job_id USING ERRCODE = 'AW020';
    END IF;

    v_job := ROW(v_d.job_id, v_d.run_lease, 0, v_d.max_attempts, v_d.priority, v_d.queue, v_d.kind, v_d.args,
                 v_d.tags, v_d.metadata, v_d.errors, v_d.created_at, coalesce(p_run_at, v_now))::awa._job_body;

    IF v_job.run_at > v_now THEN
        INSERT INTO awa.deferred_jobs (
            job_id, state, run_at, run_lease, attempt, max_attempts, priority, queue, kind, args,
            tags, metadata, errors, created_at)
        VALUES (v_job.job_id, 'scheduled', v_job.run_at, v_job.run_lease, 0, v_job.max_attempts, v_job.priority,
                v_job.queue, v_job.kind, v_job.args, v_job.tags, v_job.metadata, v_job.errors, v_job.created_at);
        -- Due before every waiting job: wake the leader's promoter.
        PERFORM awa._wake_promoter(ARRAY[v_job.job_id]);
        v_state := 'scheduled';
    ELSE
        PERFORM awa._append_ready(ARRAY[v_job], v_now);
        v_state := 'available';
    END IF;

    RETURN QUERY SELECT v_job.job_id, v_state, v_job.queue, v_job.priority, v_job.kind, v_job.run_at;
END;
$$;
