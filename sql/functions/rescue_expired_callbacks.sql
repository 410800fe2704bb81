-- awa.rescue_expired_callbacks(limit, now): the callback-timeout rescue.
-- Retries, through the same guarded paths as a callback's retry_external
-- (the attempt counted, 'callback timed out' appended; failed or the DLQ
-- when attempts are exhausted), up to limit jobs whose callback timed out
-- unresolved: parked jobs (awa.external_waits, by the timeout index, rows
-- taken FOR UPDATE SKIP LOCKED: a resolver or a cancel holding one wins), then
-- open attempts still waiting (awa.callbacks, re-checked under
-- awa._attempt_guard: a resume or a closer that came first wins), up to
-- limit in all. Also deletes the registrations of attempts that closed
-- otherwise, resumed or not: at their timeout, or once prune reclaimed their
-- claim batch (up to limit). A late resolution or handler result is then
-- stale. docs/storage.md, "Callbacks".
-- Locks: never waits for a worker's or a resolver's: an attempt's lock is
-- only tried (a busy attempt waits for the next call), rows are taken SKIP
-- LOCKED; only the claim ring's share locks are waited for (as prune's).
-- Errors: AW010 limit outside 1..100000. Called by the maintenance leader.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.rescue_expired_callbacks(p_limit int DEFAULT 1000, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now    timestamptz := coalesce(p_now, now());
    v_w      awa.external_waits;
    v_x      awa.callbacks;
    v_n      int := 0;
    v_closed uuid[] := '{}';
    v_open   boolean;
BEGIN
    PERFORM awa._require_read_committed('awa.rescue_expired_callbacks');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);

    FOR v_w IN
        DELETE FROM awa.external_waits w
        WHERE w.job_id IN (SELECT x.job_id FROM awa.external_waits x
                           WHERE x.timeout_at < v_now
                           ORDER BY x.timeout_at, x.job_id
                           LIMIT p_limit
                           FOR UPDATE SKIP LOCKED)
        RETURNING *
    LOOP
        v_n := v_n + 1;
        RETURN QUERY SELECT v_w.job_id, v_w.run_lease, 'applied'::awa.finalize_outcome,
                            awa._route_parked(v_w, 'retry', NULL, 'callback timed out', NULL, v_now);
    END LOOP;

    FOR v_x IN
        -- In claim-batch order, the order awa._close_claims takes those locks in.
        SELECT e.* FROM (SELECT * FROM awa.callbacks x WHERE x.timeout_at < v_now
                         ORDER BY x.timeout_at LIMIT p_limit - v_n) AS e
        ORDER BY awa._receipt_batch_id(e.receipt_id), e.receipt_id
    LOOP
        -- A busy attempt waits for the next call: the lock's holder may wait
        -- for a parked row taken above (a resolver that raced the park) or be
        -- a handler's open transaction.
        v_open := awa._attempt_guard(v_x.job_id, v_x.run_lease, v_x.claim_slot, v_x.receipt_id, true);
        CONTINUE WHEN v_open IS NULL;
        IF NOT v_open THEN
            v_closed := v_closed || v_x.callback_id;
        ELSIF EXISTS (SELECT 1 FROM awa.callbacks x WHERE x.callback_id = v_x.callback_id AND x.resumed_at IS NULL) THEN
            RETURN QUERY SELECT * FROM awa._finalize('retry', 'callback_timeout', ARRAY[v_x.job_id],
                                                     ARRAY[v_x.run_lease], ARRAY[v_x.claim_slot],
                                                     ARRAY[v_x.receipt_id], ARRAY['callback timed out'],
                                                     NULL, v_now);
            DELETE FROM awa.callbacks x WHERE x.callback_id = v_x.callback_id;
        END IF;
    END LOOP;
    -- A closed attempt stays closed: its registration goes without its guard,
    -- skipped when locked (a registration superseding it holds it). So does,
    -- before its timeout, one whose claim batch prune has reclaimed (prune
    -- carries open attempts' batches), the claim ring share-locked first as in
    -- awa._attempt_guard.
    DELETE FROM awa.callbacks x
    WHERE x.callback_id IN (SELECT y.callback_id FROM awa.callbacks y WHERE y.callback_id = ANY (v_closed)
                            FOR UPDATE SKIP LOCKED);
    LOCK TABLE awa.claim_batches IN ACCESS SHARE MODE;
    DELETE FROM awa.callbacks x
    WHERE x.callback_id IN (SELECT y.callback_id FROM awa.callbacks y
                            WHERE NOT EXISTS (SELECT 1 FROM awa.claim_batches b
                                              WHERE b.batch_id = awa._receipt_batch_id(y.receipt_id))
                            LIMIT p_limit
                            FOR UPDATE SKIP LOCKED);
END;
$$;
