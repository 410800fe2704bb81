-- awa._key_lane(queue, key, priority): the lane of a concurrency key at a
-- priority (awa.key_lanes), created when missing: a queue_lanes row named
-- '<queue>#<lane_id>' (shard 0), its claim head and the key_lanes row; it
-- draws positions from the pool (awa._lane_position_seq), like any lane.
-- Locks: on creation only, (key_lane, hashtext(queue#key#priority)), waited
-- for and held to the end of the transaction, then the lookup again: two
-- producers of a new key create its lane once. The caller resolves every
-- lane before taking any lane lock (awa._append_ready), so this wait never
-- closes a cycle with lane locks.
-- Outside READ COMMITTED a lane committed after the snapshot collides:
-- 40001, as in awa._resolve_lanes (retry the transaction).
-- Called by awa._append_ready.
CREATE FUNCTION awa._key_lane(p_queue text, p_key text, p_priority smallint, OUT id int, OUT seq regclass)
LANGUAGE plpgsql
AS $$
BEGIN
    FOR v_pass IN 1 .. 2 LOOP
        SELECT k.lane_id, l.lane_seq INTO id, seq
        FROM awa.key_lanes k JOIN awa.queue_lanes l USING (lane_id)
        WHERE k.queue = p_queue AND k.key = p_key AND k.priority = p_priority;
        IF FOUND THEN
            RETURN;
        END IF;
        EXIT WHEN v_pass = 2;
        PERFORM pg_advisory_xact_lock(awa._lock_key('key_lane'), hashtext(p_queue || '#' || p_key || '#' || p_priority));
    END LOOP;
    BEGIN
        id := nextval('awa.lane_id_seq');
        seq := awa._lane_position_seq(id);
        INSERT INTO awa.queue_lanes (lane_id, queue, priority, shard, lane_seq)
        VALUES (id, p_queue || '#' || id, p_priority, 0, seq);
        INSERT INTO awa.queue_claim_heads (lane_id, claim_seq) VALUES (id, 0);
        INSERT INTO awa.key_lanes (lane_id, queue, key, priority, lane_queue)
        VALUES (id, p_queue, p_key, p_priority, p_queue || '#' || id);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'awa: the lane of key % of queue % was created by a transaction that committed after this % transaction took its snapshot: retry the transaction',
            quote_literal(p_key), quote_literal(p_queue), current_setting('transaction_isolation')
            USING ERRCODE = '40001';
    END;
END;
$$;
