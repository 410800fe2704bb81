-- awa.rescue_expired_deadlines(limit, now): closes open attempts that ran past
-- their deadline (deadline_at, set at claim time from the queue's deadline and
-- the claimer's attempt_deadline) and routes them through the retry path. A
-- late finalizer from the old worker is then stale. Cost: one closure probe
-- per expired batch still in the claim ring (docs/storage.md).
-- Locks and races: as awa.rescue_stale_claims.
-- Errors: AW010 limit outside 1..100000. Called by the maintenance leader.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
CREATE FUNCTION awa.rescue_expired_deadlines(p_limit int DEFAULT 1000, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves (and hold partition locks while it compiles).
SET jit = off
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_now, now());
    v_jobs bigint[];
    v_lses bigint[];
    v_slts int[];
    v_rcts bigint[];
BEGIN
    PERFORM awa._require_read_committed('awa.rescue_expired_deadlines');
    IF p_limit IS NULL OR p_limit NOT BETWEEN 1 AND 100000 THEN
        RAISE EXCEPTION 'awa: limit must be between 1 and 100000, got %', p_limit USING ERRCODE = 'AW010';
    END IF;

    -- Per expired batch one closure probe (awa._claim_batch_closed); only the items of
    -- a batch still open are probed one by one. Both probes are per-row
    -- subplans on the closures' GiST index: as a join, the planner would hash
    -- the whole slot's closures and test every item against every closure.
    SELECT array_agg(s.job_id), array_agg(s.run_lease), array_agg(s.claim_slot), array_agg(s.receipt_id)
    INTO v_jobs, v_lses, v_slts, v_rcts
    FROM (
        SELECT i.job_id, i.run_lease, b.issued_slot AS claim_slot, b.batch_id * 1024 + i.k - 1 AS receipt_id
        FROM awa.claim_batches b
        CROSS JOIN LATERAL unnest(b.job_ids, b.run_leases) WITH ORDINALITY AS i (job_id, run_lease, k)
        WHERE b.deadline_at < v_now
          AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids))
          AND (SELECT true FROM awa.claim_closures c
               WHERE c.claim_slot = b.claim_slot AND c.receipts @> (b.batch_id * 1024 + i.k - 1)
               LIMIT 1) IS NULL
        ORDER BY b.deadline_at, b.batch_id, i.k
        LIMIT p_limit
    ) AS s;

    IF v_jobs IS NULL THEN
        RETURN;
    END IF;

    RETURN QUERY
    SELECT * FROM awa._finalize('retry', 'deadline_expired', v_jobs, v_lses, v_slts, v_rcts,
                                array_fill('rescued: deadline exceeded'::text, ARRAY[cardinality(v_jobs)]),
                                NULL, v_now);
END;
$$;
