-- awa._carry_running(from_slot, to_slot, candidates): moves the running jobs
-- drawn from queue slot from_slot (items of claim batches with ready_slot =
-- from_slot whose receipt no closure covers) forward, looking only at the
-- claim batches in candidates (the caller's proof: the batches drawn from the
-- slot that were open when it took the slot's fingerprint; a batch drawn
-- later changes the fingerprint): a copy of each one's ready row in
-- slot to_slot (every column kept but ready_slot; a job of a batch row,
-- awa.ready_batches, is copied as a ready row, each row read once for all
-- of its jobs asked: awa._batch_items), and the batch repointed
-- (ready_slot = to_slot: the one UPDATE of a claim batch, once per batch per
-- queue-ring wrap, only for attempts that outlive one). Finalizers then find
-- the row in to_slot. Returns how many batches moved, or NULL when a closer
-- holds one of their batch locks: then nothing moved, and the caller keeps the
-- slot for a later tick. See docs/storage.md, "Long attempts".
-- Locks: per batch, the claim_batch lock (awa._lock_key), in batch
-- order; try only, because a closer that holds one may be waiting for the
-- slot's locks, which the caller (awa.prune_ring) holds ACCESS EXCLUSIVE. A
-- closer takes that lock before it reads the batch, so it reads the batch
-- either before (and then holds the lock: no move) or after the move.
CREATE FUNCTION awa._carry_running(p_from int, p_to int, p_candidates bigint[])
RETURNS int
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    v_ids bigint[];
BEGIN
    v_ids := ARRAY(SELECT b.batch_id FROM awa.claim_batches b
                   WHERE b.batch_id = ANY (p_candidates) AND b.ready_slot = p_from AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids))
                   ORDER BY b.batch_id);
    IF cardinality(v_ids) = 0 THEN
        RETURN 0;
    END IF;
    FOR i IN 1 .. cardinality(v_ids) LOOP
        IF NOT pg_try_advisory_xact_lock(awa._lock_key('claim_batch'), awa._lock_claim_batch_id(v_ids[i])) THEN
            RETURN NULL;
        END IF;
    END LOOP;

    -- Statements of their own after the locks: a closure committed meanwhile
    -- is seen, and that item is not copied.
    INSERT INTO awa.ready_entries (
        ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
        queue, kind, args, tags, metadata, errors, created_at, run_at)
    SELECT p_to, r.lane_id, r.lane_seq, r.job_id, r.run_lease, r.attempt, r.max_attempts, r.priority,
           r.queue, r.kind, r.args, r.tags, r.metadata, r.errors, r.created_at, r.run_at
    FROM awa._open_receipts o
    JOIN awa.ready_entries r ON r.ready_slot = p_from AND r.lane_id = o.lane_id AND r.lane_seq = o.lane_seq
    WHERE o.batch_id = ANY (v_ids) AND o.ready_slot = p_from;
    -- The jobs held in batch rows: grouped by row (a position names its row:
    -- first_seq = lane_seq & ~1023), each row expanded once over the span of
    -- its positions asked, and only those kept.
    INSERT INTO awa.ready_entries (
        ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
        queue, kind, args, tags, metadata, errors, created_at, run_at)
    SELECT p_to, e.lane_id, e.lane_seq, e.job_id, e.run_lease, e.attempt, e.max_attempts, e.priority,
           e.queue, e.kind, e.args, e.tags, e.metadata, e.errors, e.created_at, e.run_at
    FROM (SELECT o.lane_id, o.lane_seq & ~1023::bigint AS first_seq, array_agg(o.lane_seq) AS seqs,
                 min(o.lane_seq) AS lo, max(o.lane_seq) AS hi
          FROM awa._open_receipts o
          WHERE o.batch_id = ANY (v_ids) AND o.ready_slot = p_from
          GROUP BY o.lane_id, o.lane_seq & ~1023::bigint) AS g
    JOIN awa.ready_batches r ON r.ready_slot = p_from AND r.lane_id = g.lane_id AND r.first_seq = g.first_seq
    CROSS JOIN LATERAL awa._batch_items(r, g.lo - 1, (g.hi - g.lo + 1)::int) AS e
    WHERE e.lane_seq = ANY (g.seqs);

    UPDATE awa.claim_batches b SET ready_slot = p_to
    WHERE b.batch_id = ANY (v_ids) AND b.ready_slot = p_from;
    RETURN cardinality(v_ids);
END;
$$;
