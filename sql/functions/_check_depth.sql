-- awa._check_depth(queue, max_depth, adding): raises AW060 (queue_full) when
-- adding more available jobs to the queue would take its available depth
-- above max_depth; returns otherwise. The depth is the ready jobs above their
-- lane's claim cursor, over its shard and key lanes (awa.claim_cursors), counted up to the most that could
-- still pass (max_depth - adding + 1: a bounded index read, whatever the
-- backlog): per-row ready rows (awa.ready_entries) one by one, then, when
-- they are short, each batch row's items (awa.ready_batches) by arithmetic
-- on its block; jobs cancelled while available still count until a claim
-- passes them, so it is an upper bound. Rows of producers that have not committed
-- are not seen: concurrent producers can take the queue above max_depth by
-- what they insert meanwhile (docs/storage.md, "Flow control").
-- Locks: ACCESS SHARE on the claim marks before the ready rows, in the
-- claim's order (docs/storage.md, "Locks").
-- Called by awa._append_ready for producers (insert paths) and by
-- awa._insert_unique (before it takes keys); never for promotion, retries
-- and DLQ retries: jobs already accepted are never refused.
CREATE FUNCTION awa._check_depth(p_queue text, p_max_depth int, p_adding bigint)
RETURNS void
LANGUAGE plpgsql
-- One generic plan per session: the count walks each lane's index from its
-- cursor whatever the values, and a custom plan (over every ready and cursor
-- partition) cost 1.6 ms to plan at each insert, twice the read.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_cap bigint := p_max_depth - p_adding + 1;
    v_n   bigint := 0;
BEGIN
    IF v_cap > 0 THEN
        LOCK TABLE awa.cursor_marks IN ACCESS SHARE MODE;
        SELECT count(*) INTO v_n
        FROM (SELECT 1
              FROM awa.queue_lanes l
              JOIN awa.claim_cursors c USING (lane_id)
              CROSS JOIN LATERAL (SELECT 1 FROM awa.ready_entries r
                                  WHERE r.lane_id = l.lane_id AND r.lane_seq > c.claim_seq
                                  ORDER BY r.lane_seq LIMIT v_cap) AS x
              WHERE l.queue = p_queue
                 OR l.lane_id IN (SELECT a.lane_id FROM awa.active_key_lanes a WHERE a.queue = p_queue)
              LIMIT v_cap) AS t;
        -- Short of the cap: the batch rows' items above each cursor, by
        -- arithmetic on each row's block (its arrays not read), at most
        -- enough rows per lane to reach the cap (each holds at least one).
        IF v_n < v_cap THEN
            SELECT v_n + coalesce(sum(x.k), 0) INTO v_n
            FROM awa.queue_lanes l
            JOIN awa.claim_cursors c USING (lane_id)
            CROSS JOIN LATERAL (SELECT least(b.n, b.first_seq + b.n - 1 - c.claim_seq) AS k
                                FROM awa.ready_batches b
                                WHERE b.lane_id = l.lane_id AND b.first_seq > c.claim_seq - 1024
                                  AND b.first_seq + b.n - 1 > c.claim_seq
                                ORDER BY b.first_seq LIMIT v_cap - v_n) AS x
            WHERE l.queue = p_queue
               OR l.lane_id IN (SELECT a.lane_id FROM awa.active_key_lanes a WHERE a.queue = p_queue);
        END IF;
    END IF;
    IF v_cap <= 0 OR v_n >= v_cap THEN
        RAISE EXCEPTION 'awa: queue % is full: adding % jobs to % or more available would pass its max_depth %',
            quote_literal(p_queue), p_adding, greatest(v_n, 0), p_max_depth
            USING ERRCODE = 'AW060', HINT = 'retry later, or raise max_depth with awa.configure_queue';
    END IF;
END;
$$;
