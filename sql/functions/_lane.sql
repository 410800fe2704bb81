-- awa._lane(queue, priority): the lane of (queue, priority). The first use of
-- a queue creates all four of its lanes (priorities 1..4) at once, each with
-- its position sequence and claim head, so a queue's lanes are created in one
-- transaction, once.
-- Locks: on creation only, an advisory transaction lock per queue name
-- (1096237316, hashtext(queue)). Callers resolve every lane they need before
-- taking any lane lock, so waiting here never closes a cycle with lane locks.
-- Idempotent. Called by awa._append_ready.
CREATE FUNCTION awa._lane(p_queue text, p_priority smallint)
RETURNS awa.queue_lanes
LANGUAGE plpgsql
AS $$
DECLARE
    v_lane awa.queue_lanes;
    v_id   int;
BEGIN
    SELECT * INTO v_lane FROM awa.queue_lanes WHERE queue = p_queue AND priority = p_priority;
    IF FOUND THEN
        RETURN v_lane;
    END IF;

    PERFORM pg_advisory_xact_lock(1096237316, hashtext(p_queue));
    SELECT * INTO v_lane FROM awa.queue_lanes WHERE queue = p_queue AND priority = p_priority;
    IF FOUND THEN
        RETURN v_lane;
    END IF;

    FOR v_priority IN 1 .. 4 LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM awa.queue_lanes WHERE queue = p_queue AND priority = v_priority);
        v_id := nextval('awa.lane_id_seq');
        EXECUTE format('CREATE SEQUENCE awa.%I AS bigint', 'lane_seq_' || v_id);
        INSERT INTO awa.queue_lanes (lane_id, queue, priority, lane_seq)
        VALUES (v_id, p_queue, v_priority, format('awa.%I', 'lane_seq_' || v_id)::regclass);
        INSERT INTO awa.queue_claim_heads (lane_id, claim_seq) VALUES (v_id, 0);
    END LOOP;

    SELECT * INTO v_lane FROM awa.queue_lanes WHERE queue = p_queue AND priority = p_priority;
    RETURN v_lane;
END;
$$;
