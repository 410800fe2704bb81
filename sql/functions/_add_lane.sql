-- awa._add_lane(queue, priority, shards): creates the lowest missing shard
-- lane below shards of (queue, priority) that no other transaction is
-- creating (a queue_lanes row and its claim head) and returns it, or NULLs
-- when there is none. A producer calls it when every lane it knows of the
-- (queue, priority) is held, so concurrent producers spread over up to
-- enqueue_shards lanes and a queue fed by one session keeps one lane per
-- priority.
-- Locks: per shard, the try-lock (shard_creation,
-- hashtext(queue/priority/shard)), try only and held to the end of the
-- transaction when taken: the caller may already hold lane locks, so it never
-- waits here, and a shard that another open transaction is creating is
-- skipped rather than waited for (a hash collision only skips a shard). Only
-- at READ COMMITTED (the caller's rule): a lane committed meanwhile is seen,
-- or collides (unique_violation: NULLs, the caller waits on a lane instead).
-- Called by awa._append_ready.
CREATE FUNCTION awa._add_lane(p_queue text, p_priority smallint, p_shards int, OUT id int, OUT seq regclass)
LANGUAGE plpgsql
AS $$
BEGIN
    FOR v_shard IN 0 .. p_shards - 1 LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM awa.queue_lanes l
                              WHERE l.queue = p_queue AND l.priority = p_priority AND l.shard = v_shard)
            OR NOT pg_try_advisory_xact_lock(awa._lock_key('shard_creation'), hashtext(p_queue || '/' || p_priority || '/' || v_shard));
        BEGIN
            id := nextval('awa.lane_id_seq');
            seq := awa._lane_position_seq(id);
            INSERT INTO awa.queue_lanes (lane_id, queue, priority, shard, lane_seq)
            VALUES (id, p_queue, p_priority, v_shard, seq);
            INSERT INTO awa.queue_claim_heads (lane_id, claim_seq) VALUES (id, 0);
            RETURN;
        EXCEPTION WHEN unique_violation THEN
            id := NULL;
            seq := NULL;
            RETURN;
        END;
    END LOOP;
END;
$$;
