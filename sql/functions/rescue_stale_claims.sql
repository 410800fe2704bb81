-- awa.rescue_stale_claims(staleness, limit, now): closes open attempts whose
-- worker stopped heartbeating and routes them through the retry path (the
-- attempt counts; exhausted jobs fail or go to the DLQ). An attempt is stale
-- when it was claimed before now - staleness and its instance's heartbeat is
-- older than that too (or the claim named no instance, or the instance row is
-- gone). A late finalizer from the old worker is then stale.
-- Locks and races: the candidates are re-checked under the claim-batch locks
-- of awa._close_claims, so an attempt finalized meanwhile is left alone.
-- Errors: AW010 staleness not positive, limit outside 1..100000.
-- Called by the maintenance leader.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.rescue_stale_claims(
    p_staleness interval DEFAULT interval '90 seconds',
    p_limit     int DEFAULT 1000,
    p_now       timestamptz DEFAULT NULL
)
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
    v_cut  timestamptz;
BEGIN
    PERFORM awa._require_read_committed('awa.rescue_stale_claims');
    IF p_staleness IS NULL OR p_staleness <= interval '0' THEN
        RAISE EXCEPTION 'awa: staleness must be positive, got %', p_staleness USING ERRCODE = 'AW010';
    END IF;
    PERFORM awa._require_between('limit', p_limit, 1, 100000);
    v_cut := v_now - p_staleness;

    -- Per candidate batch one closure probe (awa._claim_batch_closed); only the
    -- items of a batch still open are probed one by one (awa._open_receipts,
    -- as in awa.rescue_expired_deadlines).
    RETURN QUERY
    SELECT * FROM awa._rescue_open('rescued_stale', 'rescued: worker heartbeat went stale', ARRAY(
        SELECT o FROM awa._open_receipts o
        LEFT JOIN awa.runtime_instances ri ON ri.instance_id = o.instance_id
        WHERE o.claimed_at < v_cut
          AND (ri.instance_id IS NULL OR ri.heartbeat_at < v_cut)
          AND NOT awa._claim_batch_closed(o.claim_slot, o.batch_id, o.batch_size)
        ORDER BY o.claimed_at, o.batch_id, o.item
        LIMIT p_limit), v_now);
END;
$$;
