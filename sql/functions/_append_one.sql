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
-- The notify rule's evidence, first: the entry's tail (the lane, position,
-- transaction and cursor generation and slot of this session's last append
-- at READ COMMITTED; awa._lane_cache_key). When that transaction committed
-- (or is this one), the lane is the same, the cursor ring has not turned
-- since, and the lane has no claim mark at or above that position in the
-- current cursor slot (one static read of cursor_marks_0 or _1), that job
-- waits above the cursor and this one need not notify; anything else takes
-- awa._claimers_behind. Why that is enough: docs/storage.md, "The producer".
-- Why a second path: a one-job transaction compiles every PL/pgSQL
-- expression it evaluates and starts every statement afresh, so the insert's
-- server CPU follows their count; this path has about a fifth of
-- awa._append_ready's (docs/storage.md, "The producer").
-- Locks: the chosen lane's producer lock (lane_producer, lane_id), held
-- until commit. Any isolation level (the notify rule applies at READ
-- COMMITTED only, as in awa._append_ready; the tail is written there only).
-- Called by awa.insert_job.
CREATE FUNCTION awa._append_one(p_job awa._job_body)
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    v_key   text := awa._lane_cache_key(p_job.queue, p_job.priority);
    v_cache text[] := string_to_array(current_setting(v_key, true), '|');
    v_ids   int[];
    v_k     int;
    v_pref  int;
    v_pick  int;
    v_lane  int;
    v_slot  int;
    v_pos   bigint;
    v_mark  bigint;
    v_gen   bigint;
    v_cslot int;
    v_behind boolean := false;
    v_tail  text;
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
    v_lane := v_ids[v_pick + 1];

    -- The current queue slot (awa._current_slot's read) and the cursor
    -- ring's generation and slot, in one statement.
    SELECT q.slot, c.generation, c.slot INTO v_slot, v_gen, v_cslot
    FROM (SELECT r.slot FROM awa.ring_rotations r WHERE r.ring = 'queue' ORDER BY r.generation DESC LIMIT 1) AS q,
         (SELECT r.generation, r.slot FROM awa.ring_rotations r WHERE r.ring = 'cursor'
          ORDER BY r.generation DESC LIMIT 1) AS c;
    v_pos := nextval((string_to_array(v_cache[4], ','))[v_pick + 1]::oid::regclass) * 1024;
    INSERT INTO awa.ready_entries (
        ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
        queue, kind, args, tags, metadata, errors, created_at, run_at)
    VALUES (v_slot, v_lane, v_pos, p_job.job_id, p_job.run_lease, p_job.attempt, p_job.max_attempts,
            p_job.priority, p_job.queue, p_job.kind, p_job.args, p_job.tags, p_job.metadata, p_job.errors,
            p_job.created_at, p_job.run_at);
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        PERFORM pg_notify('awa:' || p_job.queue, '');
        RETURN true;
    END IF;

    -- The tail (fields 8-12): lane, position, xid, cursor generation, cursor
    -- slot. Its slot is read only while the generation read above is the
    -- tail's (never a sealed slot, which a prune may hold): a static read of
    -- one marks partition (a statement of its own, whose lock comes before
    -- its snapshot), with the generation again in that snapshot.
    IF v_cache[8]::int = v_lane AND v_cache[11]::bigint = v_gen AND v_cslot IN (0, 1)
       AND (pg_xact_status(v_cache[10]::xid8) = 'committed' OR v_cache[10]::xid8 = pg_current_xact_id()) THEN
        IF v_cslot = 0 THEN
            SELECT (SELECT m.claim_seq FROM awa.cursor_marks_0 m WHERE m.lane_id = v_lane
                    ORDER BY m.claim_seq DESC LIMIT 1),
                   (SELECT r.generation FROM awa.ring_rotations r WHERE r.ring = 'cursor'
                    ORDER BY r.generation DESC LIMIT 1) = v_gen
            INTO v_mark, v_behind;
        ELSE
            SELECT (SELECT m.claim_seq FROM awa.cursor_marks_1 m WHERE m.lane_id = v_lane
                    ORDER BY m.claim_seq DESC LIMIT 1),
                   (SELECT r.generation FROM awa.ring_rotations r WHERE r.ring = 'cursor'
                    ORDER BY r.generation DESC LIMIT 1) = v_gen
            INTO v_mark, v_behind;
        END IF;
        v_behind := v_behind AND (v_mark IS NULL OR v_mark < v_cache[9]::bigint);
    END IF;
    IF NOT v_behind AND NOT awa._claimers_behind(v_slot, v_lane, v_pos) THEN
        PERFORM pg_notify('awa:' || p_job.queue, '');
    END IF;
    -- An assignment, not PERFORM: PL/pgSQL evaluates it as a simple
    -- expression, where PERFORM would start a query.
    v_tail := set_config(v_key, array_to_string(v_cache[1:7] || ARRAY[v_lane::text, v_pos::text, pg_current_xact_id()::text,
                                                                     v_gen::text, v_cslot::text], '|'), false);
    RETURN true;
END;
$$;
