-- awa._resolve_lanes(queue, priority): the lanes producers of (queue, priority) use,
-- as parallel arrays ordered by shard (ids: lane_id, seqs: the position
-- sequence the lane draws from), and the configured shard count
-- (queue_meta.enqueue_shards, default 8), and the queue's max_depth and
-- concurrency_key (awa.queue_options; NULL: none): lanes exist for shards 0 .. n-1
-- where n <= shards, created on demand (awa._add_lane: a producer adds a
-- shard only when every existing one is held), so a queue that one session
-- feeds has one lane per priority. When the queue has no lane at this
-- priority yet, shard 0 of every priority is created here (so a later first
-- use of another priority never waits for this lock mid-transaction): a
-- queue_lanes row and a claim head each, no database object (lanes draw positions from the pool of sequences the install
-- creates, see awa._lane_position_seq), so a new queue needs no CREATE
-- privilege. Lanes of shards beyond a lowered shard count are kept (claimers
-- drain them) but no longer returned.
-- Locks: on creation only, an advisory transaction lock per queue name
-- (lane_creation, hashtext(queue)). Callers resolve every lane they need before
-- taking any lane lock, so waiting here never closes a cycle with lane locks.
-- Outside READ COMMITTED, lanes that a transaction created and committed after
-- this transaction's snapshot are invisible to it: creating them again would
-- collide, so that case raises 40001 (serialization_failure; retry the
-- transaction: its new snapshot sees the lanes). See docs/storage.md.
-- Idempotent. Called by awa._append_ready.
CREATE FUNCTION awa._resolve_lanes(p_queue text, p_priority smallint, OUT ids int[], OUT seqs regclass[], OUT shards int,
                                   OUT max_depth int, OUT key_path text)
LANGUAGE plpgsql
AS $$
DECLARE
    v_id int;
BEGIN
    shards := coalesce((SELECT m.enqueue_shards FROM awa.queue_meta m WHERE m.queue = p_queue), 8);
    SELECT o.max_depth, o.concurrency_key INTO max_depth, key_path FROM awa.queue_options o WHERE o.queue = p_queue;
    -- Read the lanes; if there is none, create shard 0 of every priority and
    -- read again.
    FOR v_pass IN 1 .. 2 LOOP
        SELECT array_agg(l.lane_id ORDER BY l.shard), array_agg(l.lane_seq ORDER BY l.shard)
        INTO ids, seqs
        FROM awa.queue_lanes l
        WHERE l.queue = p_queue AND l.priority = p_priority AND l.shard < shards;
        EXIT WHEN coalesce(cardinality(ids), 0) > 0 OR v_pass = 2;

        PERFORM pg_advisory_xact_lock(awa._lock_key('lane_creation'), hashtext(p_queue));
        BEGIN
            FOR v_priority IN 1 .. 4 LOOP
                CONTINUE WHEN EXISTS (SELECT 1 FROM awa.queue_lanes
                                      WHERE queue = p_queue AND priority = v_priority AND shard = 0);
                v_id := nextval('awa.lane_id_seq');
                INSERT INTO awa.queue_lanes (lane_id, queue, priority, shard, lane_seq)
                VALUES (v_id, p_queue, v_priority, 0, awa._lane_position_seq(v_id));
                INSERT INTO awa.queue_claim_heads (lane_id, claim_seq) VALUES (v_id, 0);
            END LOOP;
        EXCEPTION WHEN unique_violation THEN
            -- Under the lock, only lanes committed after this snapshot collide.
            RAISE EXCEPTION 'awa: the lanes of queue % were created by a transaction that committed after this % transaction took its snapshot: retry the transaction',
                quote_literal(p_queue), current_setting('transaction_isolation')
                USING ERRCODE = '40001';
        END;
    END LOOP;
END;
$$;
