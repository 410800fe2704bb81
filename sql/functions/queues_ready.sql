-- awa.queues_ready(queues, now): which of many queues a claim may find work
-- in, in one call: one row per queue (each name once, in name order) that
-- awa.queue_readiness reports pending, with its ready and wait_for. So a
-- client working many queues asks this once per poll instead of claiming
-- from every idle queue (the Go runtime's shared poller), and wakes only the
-- queues it returns whose wait_for is NULL.
-- Cost: one statement reads every listed queue's lanes (the queue's own and
-- its key lanes) and the tips of their position sequences (awa._lane_tip,
-- once per sequence: lanes share them). A paused queue, a
-- queue with no lane, and a lane whose tip is at or below its claim floor
-- (awa.queue_claim_heads) go no further. A used lane's tip stays above its
-- cursor (a call reserves a block of 1,024 positions), so the session
-- remembers, per lane, the tip at which it last found the lane quiet (the
-- setting awa.ready_memo_<schema oid>: a JSON object of lane id to tip): a lane whose tip
-- has not moved since cannot have gained a job, as every writer of ready
-- rows (awa._append_ready) reserves a new block. The other lanes are tested
-- together, as awa.queue_pending tests one: the producer lock first
-- (awa._producer_free), then, in a statement of its own (it sees the rows of
-- the producers that held the lane), a row above the cursor (a per-row ready
-- row or a batch row's item). A queue whose
-- tested lanes are all quiet is remembered; only the others run
-- awa.queue_readiness (pending, ready, wait_for). The tips are read before
-- the tests, so a producer that reserves after them moves the tip; one that
-- reserved before still holds its lane or has committed, and the tests see
-- it. A queue with a free lane that has a row above its cursor is ready
-- (queue_pending's rule) without running awa.queue_readiness: only its rate
-- bucket is read (awa._rate_wait). Outside READ COMMITTED nothing is
-- remembered and every queue with a lane past its floor runs
-- awa.queue_readiness.
-- Writes nothing but that session setting; holds no lock past the call
-- (sequences and lanes are read, producer try-locks released at once).
-- Errors: AW002 queues NULL, or an element NULL or a name no job can have
-- (awa._require_queue_name); nothing is read then.
-- Called by workers (the Go driver's Driver.QueuesReady) and any SQL client.
CREATE FUNCTION awa.queues_ready(p_queues text[], p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.ready_queue
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
-- One generic plan per session: custom plans (each planned over every ready
-- and cursor partition, 2 ms) were chosen at every call, for the same shape.
SET plan_cache_mode = force_generic_plan
-- No sequential scans: a plan the cache keeps from when the ready slot or the
-- lane tables were small (a generic plan) probed
-- each lane by sequential scans of every ready partition, run once per lane
-- (TestPollPlansCachedWhileTheLaneTablesWereSmallStillProbeByIndex).
SET enable_seqscan = off
AS $$
DECLARE
    v_queue text;
    v_now   timestamptz := coalesce(p_now, now());
    v_key   text := 'awa.ready_memo_' || 'awa'::regnamespace::oid;
    v_memo  jsonb := coalesce(nullif(current_setting(v_key, true), ''), '{}')::jsonb;
    v_drop  int[] := '{}';
    v_add_l int[] := '{}';
    v_add_t bigint[] := '{}';
    v_mq    text[];
    v_ml    int[];
    v_mt    bigint[];
    v_mf    boolean[];
    v_mc    bigint[];
    v_wait  interval;
    v_c     record;
    v_rc    boolean := current_setting('transaction_isolation') = 'read committed';
    v_r     record;
BEGIN
    IF p_queues IS NULL THEN
        RAISE EXCEPTION 'awa: queues must not be null' USING ERRCODE = 'AW002';
    END IF;
    -- One pass over the names; the first bad one raises.
    SELECT u.queue INTO v_queue FROM unnest(p_queues) AS u (queue) WHERE NOT awa._queue_name_ok(u.queue) LIMIT 1;
    IF FOUND THEN
        PERFORM awa._require_queue_name(v_queue);
    END IF;
    -- Per lane past its floor whose tip is not remembered quiet (moved), in
    -- one statement: its tip, then whether its producers have all ended
    -- (the lock test, before the statement below takes its snapshot).
    WITH lanes AS (
        SELECT l.queue, l.lane_id, l.lane_seq FROM awa.queue_lanes l WHERE l.queue = ANY (p_queues)
        UNION ALL
        SELECT k.queue, l.lane_id, l.lane_seq
        FROM awa.key_lanes k JOIN awa.queue_lanes l ON l.lane_id = k.lane_id
        WHERE k.queue = ANY (p_queues)
    ),
    -- Lanes share position sequences: one read per sequence.
    seqs AS MATERIALIZED (
        SELECT s.lane_seq, awa._lane_tip(s.lane_seq) AS tip FROM (SELECT DISTINCT lanes.lane_seq FROM lanes) AS s
    ),
    tips AS (
        SELECT lanes.queue, lanes.lane_id, seqs.tip, h.claim_seq
        FROM lanes JOIN seqs USING (lane_seq) JOIN awa.queue_claim_heads h USING (lane_id)
        WHERE NOT EXISTS (SELECT 1 FROM awa.queue_pauses p WHERE p.queue = lanes.queue)
    )
    SELECT coalesce(array_agg(t.queue), '{}'), coalesce(array_agg(t.lane_id), '{}'), coalesce(array_agg(t.tip), '{}'),
           coalesce(array_agg(v_rc AND awa._producer_free(t.lane_id)), '{}')
    INTO v_mq, v_ml, v_mt, v_mf
    FROM tips t
    WHERE t.tip > t.claim_seq AND (v_memo ->> t.lane_id::text)::bigint IS DISTINCT FROM t.tip;
    -- A queue is quiet when each such lane's producers have ended and no
    -- row lies above its cursor (read now, after the lock test: rows of the
    -- producers that held the lane are visible); its tips are remembered.
    -- Any other queue gets awa.queue_readiness's answer.
    -- The cursors first, in a statement of their own: the cursor ring's
    -- prune (a TRUNCATE, every tick) invalidates the plans that read it, and
    -- this one is cheap to plan again; the ready rows' probe below keeps its
    -- plan. A claim between the two only makes the probe see a row it has
    -- taken: the queue reads ready, and a claim may find nothing (as after
    -- any answer a claim races).
    v_mc := ARRAY(SELECT c.claim_seq FROM unnest(v_ml) WITH ORDINALITY AS u (lane_id, k)
                  LEFT JOIN awa.claim_cursors c ON c.lane_id = u.lane_id ORDER BY u.k);
    -- A free lane with a row above its cursor is what queue_pending calls
    -- ready: its queue is returned ready (pending) without asking it again,
    -- only its rate bucket (awa._rate_wait). The probe runs for free lanes
    -- only (a one-time filter).
    FOR v_c IN
        SELECT mv.queue, array_agg(mv.lane_id) AS lane_ids, array_agg(mv.tip) AS tips,
               bool_and(mv.free AND a.lane_seq IS NULL) AS quiet, bool_or(a.lane_seq IS NOT NULL) AS ready
        FROM unnest(v_mq, v_ml, v_mt, v_mf, v_mc) AS mv (queue, lane_id, tip, free, cur)
        -- Either plane: a per-row ready row, or a batch row with an item
        -- above the cursor (its block starts less than 1,024 below it).
        CROSS JOIN LATERAL (SELECT coalesce(
                                (SELECT r.lane_seq FROM awa.ready_entries r
                                 WHERE mv.free AND r.lane_id = mv.lane_id AND r.lane_seq > mv.cur
                                 ORDER BY r.lane_seq LIMIT 1),
                                (SELECT b.first_seq FROM awa.ready_batches b
                                 WHERE mv.free AND b.lane_id = mv.lane_id AND b.first_seq > mv.cur - 1024
                                   AND b.first_seq + b.n - 1 > mv.cur
                                 ORDER BY b.first_seq LIMIT 1)) AS lane_seq) AS a
        GROUP BY mv.queue
        ORDER BY mv.queue
    LOOP
        -- Checked: its lanes leave the memo, and come back when quiet.
        v_drop := v_drop || v_c.lane_ids;
        IF v_c.ready THEN
            v_wait := awa._rate_wait(v_c.queue, v_now);
            RETURN NEXT (v_c.queue, v_wait IS NULL, v_wait)::awa.ready_queue;
            CONTINUE;
        END IF;
        IF NOT v_c.quiet THEN
            SELECT r.pending, r.ready, r.wait_for INTO v_r FROM awa.queue_readiness(v_c.queue, v_now) AS r;
            IF v_r.pending THEN
                RETURN NEXT (v_c.queue, v_r.ready, v_r.wait_for)::awa.ready_queue;
                CONTINUE;
            END IF;
        END IF;
        IF v_rc THEN
            v_add_l := v_add_l || v_c.lane_ids;
            v_add_t := v_add_t || v_c.tips;
        END IF;
    END LOOP;
    IF cardinality(v_drop) > 0 THEN
        v_memo := (v_memo - v_drop::text[])
                  || coalesce((SELECT jsonb_object_agg(n.lane_id, n.tip) FROM unnest(v_add_l, v_add_t) AS n (lane_id, tip)),
                              '{}');
        PERFORM set_config(v_key, v_memo::text, false);
    END IF;
END;
$$;
