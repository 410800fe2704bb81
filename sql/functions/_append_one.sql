-- awa._append_one(job): the common case of awa._append_ready for one job due
-- now (produce): appends it as a ready row and applies the notify rule
-- exactly as awa._append_ready would, in fewer statements, when this
-- session's lane cache holds a live entry for the job's (queue, priority)
-- whose queue has neither a max_depth nor a concurrency key, and one of its
-- shard lanes' producer locks is free (tried from the shard this transaction
-- used, else from backend pid mod lanes, as awa._append_ready). Returns true
-- when it did. Otherwise returns false having written nothing and taken no
-- lock, and the caller takes awa._append_ready (lane lookup or creation,
-- max_depth, key lanes, a new shard, or a wait on a held lane).
-- Why a second path: a one-job transaction compiles every PL/pgSQL
-- expression it evaluates and starts every statement afresh, so the insert's
-- server CPU follows their count; this path has about a fifth of
-- awa._append_ready's (docs/storage.md, "The producer").
-- Locks: the chosen lane's producer lock (lane_producer, lane_id), held
-- until commit. Any isolation level (the notify rule applies at READ
-- COMMITTED only, as in awa._append_ready).
-- Called by awa.insert_job.
CREATE FUNCTION awa._append_one(p_job awa._job_body)
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    v_cache text[] := string_to_array(current_setting(awa._lane_cache_key(p_job.queue, p_job.priority), true), '|');
    v_ids   int[];
    v_k     int;
    v_pref  int;
    v_pick  int;
    v_slot  int;
    v_pos   bigint;
BEGIN
    IF v_cache[2] IS DISTINCT FROM p_job.queue OR v_cache[1]::float8 <= extract(epoch FROM now())
       OR v_cache[6] <> '' OR v_cache[7] <> '' THEN
        RETURN false;
    END IF;
    v_ids := string_to_array(v_cache[3], ',')::int[];
    v_k := cardinality(v_ids);
    v_pref := nullif(current_setting('awa.enqueue_shard_' || v_ids[1], true), '')::int;
    IF v_pref IS NULL OR v_pref >= v_k THEN
        v_pref := pg_backend_pid() % v_k;
    END IF;
    FOR s IN 0 .. v_k - 1 LOOP
        IF pg_try_advisory_xact_lock(awa._lock_key('lane_producer'), v_ids[(v_pref + s) % v_k + 1]) THEN
            v_pick := (v_pref + s) % v_k;
            EXIT;
        END IF;
    END LOOP;
    IF v_pick IS NULL THEN
        RETURN false;
    ELSIF v_pick <> v_pref THEN
        PERFORM set_config('awa.enqueue_shard_' || v_ids[1], v_pick::text, true);
    END IF;

    v_slot := awa._current_slot('queue');
    v_pos := nextval((string_to_array(v_cache[4], ','))[v_pick + 1]::oid::regclass) * 1024;
    INSERT INTO awa.ready_entries (
        ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
        queue, kind, args, tags, metadata, errors, created_at, run_at)
    VALUES (v_slot, v_ids[v_pick + 1], v_pos, p_job.job_id, p_job.run_lease, p_job.attempt, p_job.max_attempts,
            p_job.priority, p_job.queue, p_job.kind, p_job.args, p_job.tags, p_job.metadata, p_job.errors,
            p_job.created_at, p_job.run_at);
    IF current_setting('transaction_isolation') <> 'read committed'
       OR NOT awa._claimers_behind(v_slot, v_ids[v_pick + 1], v_pos) THEN
        PERFORM pg_notify('awa:' || p_job.queue, '');
    END IF;
    RETURN true;
END;
$$;
