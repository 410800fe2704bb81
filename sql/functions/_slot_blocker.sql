-- awa._slot_blocker(ring, slot, carry, carry_open): what keeps the slot from
-- being truncated, or NULL when nothing live remains in it: the proof prune
-- takes (through awa._slot_live_reason, which returns its detail), with the
-- cause, one job it names and that job's queue, for awa.storage_status.
--   queue: available (a ready row, or an item of a batch row, above its
--          lane's claim cursor that no tombstone spends; not counted when
--          carry is true: prune moves those with awa._carry_ready), running (an attempt drawn from this
--          ready slot whose receipt has no closure; not counted when
--          carry_open is true: awa._carry_running moves it)
--   claim: open_claim (a receipt in this claim slot without closure
--          evidence; not counted when carry_open is true)
--   lease: live_lease (a lease whose attempt is still open, awa._live_leases;
--          not counted when carry_open is true)
-- The cursor is read from awa.claim_cursors in the proof's own statement.
-- Read-only. Errors: AW010 unknown ring. Called by awa._slot_live_reason and
-- awa.storage_status.
CREATE FUNCTION awa._slot_blocker(p_ring text, p_slot int, p_carry boolean DEFAULT false,
                                  p_carry_open boolean DEFAULT false)
RETURNS awa._slot_blocker
LANGUAGE plpgsql
STABLE
-- As in awa.claim_ready_runtime: the "first row above the cursor" probes must
-- walk the lane index in order (O(1) per lane), never fetch and sort a slot.
SET enable_sort = off
SET jit = off
AS $$
DECLARE
    v_out   awa._slot_blocker;
    v_batch bigint;
    v_claim int;
BEGIN
    IF p_ring = 'queue' AND p_carry IS NOT TRUE THEN
        SELECT 'available', r.job_id, r.queue,
               format('ready slot %s holds an available job (job %s, lane %s position %s)',
                      p_slot, r.job_id, r.lane_id, r.lane_seq)
        INTO v_out
        FROM awa.claim_cursors h
        CROSS JOIN LATERAL (
            SELECT r.job_id, r.queue, r.lane_id, r.lane_seq FROM awa.ready_entries r
            WHERE r.ready_slot = p_slot AND r.lane_id = h.lane_id AND r.lane_seq > h.claim_seq
              AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                              WHERE t.ready_slot = p_slot AND t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq)
            ORDER BY r.lane_seq
            LIMIT 1) AS r
        LIMIT 1;
        IF v_out.detail IS NOT NULL THEN
            RETURN v_out;
        END IF;
        -- Then the batch plane, if the slot holds a batch row (one index
        -- probe; else the walk of every lane's cursor is not repeated): a
        -- lane's first row that reaches past its cursor with a position
        -- there no tombstone spends (the row's positions less the tombstones
        -- among them, arithmetic), and that position's job (id first_id +
        -- position - first_seq: no item array is read).
        IF EXISTS (SELECT 1 FROM awa.ready_batches r WHERE r.ready_slot = p_slot) THEN
            SELECT 'available', b.first_id + f.lane_seq - b.first_seq, b.queue,
                   format('ready slot %s holds an available job (job %s, lane %s position %s, in a batch row of %s jobs)',
                          p_slot, b.first_id + f.lane_seq - b.first_seq, b.lane_id, f.lane_seq, b.n)
            INTO v_out
            FROM awa.claim_cursors h
            CROSS JOIN LATERAL (
                SELECT r.first_id, r.first_seq, r.n, r.queue, r.lane_id, s.lo, s.last FROM awa.ready_batches r
                CROSS JOIN LATERAL (SELECT greatest(r.first_seq, h.claim_seq + 1) AS lo,
                                           r.first_seq + r.n - 1 AS last) AS s
                WHERE r.ready_slot = p_slot AND r.lane_id = h.lane_id AND r.first_seq > h.claim_seq - 1024
                  AND r.first_seq + r.n - 1 > h.claim_seq
                  AND s.last - s.lo + 1 > (SELECT count(*) FROM awa.ready_tombstones t
                                           WHERE t.ready_slot = p_slot AND t.lane_id = r.lane_id
                                             AND t.lane_seq BETWEEN s.lo AND s.last)
                ORDER BY r.first_seq
                LIMIT 1) AS b
            -- The row's first position no tombstone spends: one probe a position.
            CROSS JOIN LATERAL (
                SELECT min(g.lane_seq) AS lane_seq FROM generate_series(b.lo, b.last) AS g (lane_seq)
                WHERE NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                                  WHERE t.ready_slot = p_slot AND t.lane_id = b.lane_id AND t.lane_seq = g.lane_seq)) AS f
            LIMIT 1;
        END IF;
        IF v_out.detail IS NOT NULL THEN
            RETURN v_out;
        END IF;
    END IF;
    IF p_ring IN ('queue', 'claim', 'lease') AND p_carry_open THEN
        RETURN NULL;
    ELSIF p_ring IN ('queue', 'claim') THEN
        -- The same question of different batches (drawn from the ready slot,
        -- held in the claim slot): two statements, so each keeps its own
        -- index or partition pruning.
        IF p_ring = 'queue' THEN
            SELECT 'running', NULL, b.queue,
                   format('ready slot %s has a running job (claim batch %s in claim slot %s is not closed)',
                          p_slot, b.batch_id, b.claim_slot), b.batch_id, b.claim_slot
            INTO v_out.cause, v_out.job_id, v_out.queue, v_out.detail, v_batch, v_claim
            FROM awa.claim_batches b
            WHERE b.ready_slot = p_slot
              AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids))
            LIMIT 1;
        ELSE
            SELECT 'open_claim', NULL, b.queue,
                   format('claim slot %s has an open claim (batch %s of queue %s claimed at %s)',
                          p_slot, b.batch_id, b.queue, b.claimed_at), b.batch_id, b.claim_slot
            INTO v_out.cause, v_out.job_id, v_out.queue, v_out.detail, v_batch, v_claim
            FROM awa.claim_batches b
            WHERE b.claim_slot = p_slot
              AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids))
            LIMIT 1;
        END IF;
        IF v_batch IS NULL THEN
            RETURN NULL;
        END IF;
        -- One batch: name its first open attempt.
        v_out.job_id := (SELECT o.job_id FROM awa._open_receipts o
                         WHERE o.claim_slot = v_claim AND o.batch_id = v_batch ORDER BY o.item LIMIT 1);
        RETURN v_out;
    ELSIF p_ring = 'lease' THEN
        SELECT 'live_lease', l.job_id, l.queue, format('lease slot %s holds the lease of job %s', p_slot, l.job_id)
        INTO v_out
        FROM awa._live_leases l
        WHERE l.lease_slot = p_slot
        LIMIT 1;
        RETURN CASE WHEN v_out.detail IS NULL THEN NULL ELSE v_out END;
    END IF;
    RAISE EXCEPTION 'awa: unknown ring %', quote_literal(p_ring) USING ERRCODE = 'AW010';
END;
$$;
