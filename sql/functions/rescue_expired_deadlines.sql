-- awa.rescue_expired_deadlines(limit, now): closes open attempts that ran past
-- their deadline (deadline_at, set at claim time from the queue's deadline and
-- the claimer's attempt_deadline) and routes them through the retry path. A
-- late finalizer from the old worker is then stale. Cost: one closure probe
-- per expired batch still in the claim ring (docs/storage.md).
-- Locks and races: as awa.rescue_stale_claims.
-- Errors: AW010 limit outside 1..100000. Called by the maintenance leader.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.rescue_expired_deadlines(p_limit int DEFAULT 1000, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves (and hold partition locks while it compiles).
SET jit = off
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_now, now());
BEGIN
    PERFORM awa._require_read_committed('awa.rescue_expired_deadlines');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);

    -- Per expired batch one closure probe (awa._claim_batch_closed); only the
    -- items of a batch still open are probed one by one (awa._open_receipts).
    -- Both probes are per-row subplans on the closures' GiST index: as a join,
    -- the planner would hash the whole slot's closures and test every item
    -- against every closure.
    RETURN QUERY
    SELECT * FROM awa._rescue_open('deadline_expired', 'rescued: deadline exceeded', ARRAY(
        SELECT o FROM awa._open_receipts o
        WHERE o.deadline_at < v_now
          AND NOT awa._claim_batch_closed(o.claim_slot, o.batch_id, o.batch_size)
        ORDER BY o.deadline_at, o.batch_id, o.item
        LIMIT p_limit), v_now);
END;
$$;
