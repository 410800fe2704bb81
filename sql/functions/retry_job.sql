-- awa.retry_job(job_id, run_at, now): an operator runs one job again, by id:
--   scheduled/retryable -> taken out of the backlog and made available now
--                          (or scheduled at run_at), its attempts kept
--   failed/cancelled    -> its terminal record (the queue ring's snapshot, or
--                          the archive's: its chunk's elements and tag rows) is removed and
--                          the job runs again from attempt 0, available now or
--                          scheduled at run_at; errors and progress are kept
--   in the DLQ          -> as awa.retry_dlq_job
-- run_lease is kept (never reset), so finalizers of earlier attempts stay
-- stale. Returns the job as inserted (state available or scheduled).
-- Errors: AW010 job_id NULL; AW020 no such job (or no longer retained); AW021
-- the job is available, running or waiting_external already (nothing to
-- retry), or completed (a completed job is not run again: insert a new one);
-- AW021 too for a failed or cancelled job whose unique key another job now
-- holds in its states (awa._retake_unique_key).
-- Locks: first the queue ring's rotate/prune lock (ring, hashtext('queue')),
-- waited for, so no prune copies or truncates the job's terminal record while
-- it is removed; then the backlog row (DELETE), or a terminal job's unique
-- key row (awa._retake_unique_key) and its terminal row (DELETE); then lane
-- locks as awa._append_ready. Two retries of one job: the second finds the row gone
-- and reports the job's new state (AW021).
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by operators (awa jobs retry, Driver.RetryJob).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.retry_job(p_job_id bigint, p_run_at timestamptz DEFAULT NULL, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.inserted_job
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now   timestamptz := coalesce(p_now, now());
    v_job   awa._job_body;
    v_state awa.job_state;
    v_dlq   boolean;
    v_arch  awa._archived_job;
BEGIN
    PERFORM awa._require_read_committed('awa.retry_job');
    IF p_job_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    PERFORM pg_advisory_xact_lock(awa._lock_key('ring'), hashtext('queue'));

    v_dlq := EXISTS (SELECT 1 FROM awa.dlq_entries d WHERE d.job_id = p_job_id);
    IF v_dlq THEN
        RETURN QUERY SELECT * FROM awa.retry_dlq_job(p_job_id, p_run_at, v_now);
        RETURN;
    END IF;

    -- The backlog: run now (attempts kept).
    DELETE FROM awa.deferred_jobs d WHERE d.job_id = p_job_id
    RETURNING d.job_id, d.run_lease, d.attempt, d.max_attempts, d.priority, d.queue, d.kind, d.args, d.tags,
                  d.metadata, d.errors, d.created_at, coalesce(p_run_at, v_now) INTO v_job;
    -- A failed or cancelled job: its terminal record goes, and it starts over.
    -- Its unique key first (awa._retake_unique_key), so that a refusal has
    -- written nothing.
    IF v_job IS NULL
       AND (EXISTS (SELECT 1 FROM awa.done_entries e WHERE e.job_id = p_job_id AND e.state IN ('failed', 'cancelled'))
            OR EXISTS (SELECT 1 FROM awa.archived_chunks a
                       WHERE a.max_job_id >= p_job_id AND a.max_job_id < p_job_id + awa._archive_span()
                         AND a.min_job_id <= p_job_id AND a.job_ids @> ARRAY[p_job_id]
                         AND a.state IN ('failed', 'cancelled'))) THEN
        PERFORM awa._retake_unique_key(p_job_id, v_now);
    END IF;
    IF v_job IS NULL THEN
        DELETE FROM awa.done_entries e WHERE e.job_id = p_job_id AND e.state IN ('failed', 'cancelled')
        RETURNING e.job_id, e.run_lease, 0, e.max_attempts, e.priority, e.queue, e.kind, e.args, e.tags,
                      e.metadata, e.errors, e.created_at, coalesce(p_run_at, v_now) INTO v_job;
    END IF;
    IF v_job IS NULL THEN
        -- An archived one: its elements leave its chunk (the chunk goes with
        -- its last job; its id bounds stay bounds), and its id its tag rows.
        SELECT a.* INTO v_arch FROM awa._archived_job(p_job_id) AS a WHERE a.state IN ('failed', 'cancelled') LIMIT 1;
        IF v_arch.job_id IS NOT NULL THEN
            DELETE FROM awa.archived_chunks c
            WHERE c.expires_at = v_arch.expires_at AND c.chunk_id = v_arch.chunk_id AND c.n = 1;
            IF NOT FOUND THEN
                UPDATE awa.archived_chunks c
                SET n = c.n - 1,
                job_ids = c.job_ids[:v_arch.k - 1] || c.job_ids[v_arch.k + 1:],
                run_leases = c.run_leases[:v_arch.k - 1] || c.run_leases[v_arch.k + 1:],
                attempts = c.attempts[:v_arch.k - 1] || c.attempts[v_arch.k + 1:],
                max_attempts = c.max_attempts[:v_arch.k - 1] || c.max_attempts[v_arch.k + 1:],
                priorities = c.priorities[:v_arch.k - 1] || c.priorities[v_arch.k + 1:],
                args = c.args[:v_arch.k - 1] || c.args[v_arch.k + 1:],
                tags = c.tags[:v_arch.k - 1] || c.tags[v_arch.k + 1:],
                metadata = c.metadata[:v_arch.k - 1] || c.metadata[v_arch.k + 1:],
                errors = c.errors[:v_arch.k - 1] || c.errors[v_arch.k + 1:],
                created_ats = c.created_ats[:v_arch.k - 1] || c.created_ats[v_arch.k + 1:],
                run_ats = c.run_ats[:v_arch.k - 1] || c.run_ats[v_arch.k + 1:],
                finalized_ats = c.finalized_ats[:v_arch.k - 1] || c.finalized_ats[v_arch.k + 1:]
                WHERE c.expires_at = v_arch.expires_at AND c.chunk_id = v_arch.chunk_id;
            END IF;
            DELETE FROM awa.archived_tags t
            WHERE t.tag = ANY (v_arch.tags) AND t.max_job_id = p_job_id AND t.min_job_id = p_job_id
              AND t.expires_at = v_arch.expires_at AND t.chunk_id = v_arch.chunk_id;
            UPDATE awa.archived_tags t SET job_ids = array_remove(t.job_ids, p_job_id)
            WHERE t.tag = ANY (v_arch.tags) AND t.max_job_id >= p_job_id AND t.max_job_id < p_job_id + awa._archive_span()
              AND t.expires_at = v_arch.expires_at AND t.chunk_id = v_arch.chunk_id;
            v_job := ROW(v_arch.job_id, v_arch.run_lease, 0, v_arch.max_attempts, v_arch.priority, v_arch.queue,
                         v_arch.kind, v_arch.args, v_arch.tags, v_arch.metadata, v_arch.errors, v_arch.created_at,
                         coalesce(p_run_at, v_now));
        END IF;
    END IF;
    IF v_job IS NULL THEN
        v_state := awa._job_state(p_job_id);
        IF v_state IS NULL THEN
            RAISE EXCEPTION 'awa: job % not found', p_job_id USING ERRCODE = 'AW020';
        END IF;
        RAISE EXCEPTION 'awa: job % is % (nothing to retry)', p_job_id, v_state USING ERRCODE = 'AW021';
    END IF;

    IF v_job.run_at > v_now THEN
        INSERT INTO awa.deferred_jobs (
            job_id, state, run_at, run_lease, attempt, max_attempts, priority, queue, kind, args,
            tags, metadata, errors, created_at)
        VALUES (v_job.job_id, CASE WHEN v_job.attempt > 0 THEN 'retryable' ELSE 'scheduled' END::awa.job_state,
                v_job.run_at, v_job.run_lease, v_job.attempt, v_job.max_attempts, v_job.priority,
                v_job.queue, v_job.kind, v_job.args, v_job.tags, v_job.metadata, v_job.errors, v_job.created_at);
        PERFORM awa._wake_promoter(ARRAY[v_job.job_id]);
        v_state := CASE WHEN v_job.attempt > 0 THEN 'retryable' ELSE 'scheduled' END;
    ELSE
        PERFORM awa._append_ready(ARRAY[v_job], v_now);
        v_state := 'available';
    END IF;

    RETURN QUERY SELECT v_job.job_id, v_state, v_job.queue, v_job.priority, v_job.kind, v_job.run_at;
END;
$$;
