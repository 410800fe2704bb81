-- awa.rescue_expired_deadlines(limit, now): closes open attempts that ran past
-- their deadline and routes them through the retry path. An attempt's
-- deadline is its own when it set one (awa.set_attempt_deadline: the
-- partial index attempt_state_deadline_at, through awa._due_attempt_deadlines),
-- else its claim batch's deadline_at (set at claim time from the queue's
-- deadline and the claimer's attempt_deadline). An attempt with a deadline of
-- its own is not closed by its batch's, earlier or later. At most limit
-- attempts per call, earliest deadline first. A late finalizer from the old
-- worker is then stale. Cost: one closure probe per expired batch still in
-- the claim ring, one attempt_state probe per item of a batch still open, one
-- index scan of the attempts' own deadlines (docs/storage.md).
-- Locks and races: the candidates' claim_batch locks, in batch order (those of
-- awa._close_claims, taken first), then each deadline is read again in a
-- statement of its own: a set_attempt_deadline that held the lock meanwhile
-- is seen (a deadline moved later spares the attempt), and an attempt
-- finalized meanwhile is reported stale. The own deadlines of the attempts
-- closed here (now, or earlier by another closer) are cleared, their row
-- deleted when it holds no progress.
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
    v_now         timestamptz := coalesce(p_now, now());
    v_job_ids     bigint[];
    v_run_leases  bigint[];
    v_claim_slots int[];
    v_receipt_ids bigint[];
    v_batch_due   timestamptz[];
BEGIN
    PERFORM awa._require_read_committed('awa.rescue_expired_deadlines');
    PERFORM awa._require_between('limit', p_limit, 1, 100000);

    -- Candidates, both kinds. By batch: per expired batch one closure probe
    -- (awa._claim_batch_closed); only the items of a batch still open are
    -- probed one by one (awa._open_receipts), and each for a deadline of its
    -- own. Every probe is a per-row subplan on an index: as a join, the
    -- planner would hash the whole slot's closures (or all of attempt_state)
    -- and test every item against them. batch_due is NULL for an attempt
    -- chosen by its own deadline.
    SELECT array_agg(d.job_id ORDER BY d.due_at, d.receipt_id), array_agg(d.run_lease ORDER BY d.due_at, d.receipt_id),
           array_agg(d.claim_slot ORDER BY d.due_at, d.receipt_id), array_agg(d.receipt_id ORDER BY d.due_at, d.receipt_id),
           array_agg(d.batch_due ORDER BY d.due_at, d.receipt_id)
    INTO v_job_ids, v_run_leases, v_claim_slots, v_receipt_ids, v_batch_due
    FROM (SELECT u.* FROM (
              (SELECT o.job_id, o.run_lease, o.issued_slot AS claim_slot, o.receipt_id, o.deadline_at AS batch_due,
                      o.deadline_at AS due_at
               FROM awa._open_receipts o
               WHERE o.deadline_at < v_now
                 AND NOT awa._claim_batch_closed(o.claim_slot, o.batch_id, o.batch_size)
                 AND (SELECT true FROM awa.attempt_state s
                      WHERE s.job_id = o.job_id AND s.deadline_run_lease = o.run_lease) IS NULL
               ORDER BY o.deadline_at, o.batch_id, o.item
               LIMIT p_limit)
              UNION ALL
              SELECT s.job_id, s.deadline_run_lease, s.deadline_claim_slot, s.deadline_receipt_id, NULL, s.deadline_at
              FROM awa._due_attempt_deadlines(v_now, p_limit) s) AS u
          ORDER BY u.due_at, u.receipt_id
          LIMIT p_limit) AS d;
    IF v_job_ids IS NULL THEN
        RETURN;
    END IF;

    PERFORM pg_advisory_xact_lock(awa._lock_key('claim_batch'), awa._lock_claim_batch_id(b.batch_id))
    FROM (SELECT DISTINCT awa._receipt_batch_id(r) AS batch_id FROM unnest(v_receipt_ids) AS r) AS b
    ORDER BY b.batch_id;

    -- A new statement, so a new snapshot: what set_attempt_deadline wrote
    -- under the locks is seen. Still due: the attempt's own deadline when it
    -- has one now, else its batch's (an attempt chosen by an own deadline
    -- that is gone has closed: no batch deadline to fall back on).
    SELECT array_agg(c.job_id ORDER BY c.ord), array_agg(c.run_lease ORDER BY c.ord),
           array_agg(c.claim_slot ORDER BY c.ord), array_agg(c.receipt_id ORDER BY c.ord)
    INTO v_job_ids, v_run_leases, v_claim_slots, v_receipt_ids
    FROM unnest(v_job_ids, v_run_leases, v_claim_slots, v_receipt_ids, v_batch_due) WITH ORDINALITY
         AS c (job_id, run_lease, claim_slot, receipt_id, batch_due, ord)
    LEFT JOIN awa.attempt_state s ON s.job_id = c.job_id AND s.deadline_run_lease = c.run_lease
    WHERE coalesce(s.deadline_at, c.batch_due) < v_now;
    IF v_job_ids IS NULL THEN
        RETURN;
    END IF;

    RETURN QUERY
    SELECT * FROM awa._finalize('retry', 'deadline_expired', v_job_ids, v_run_leases, v_claim_slots, v_receipt_ids,
                                array_fill('rescued: deadline exceeded'::text, ARRAY[cardinality(v_job_ids)]), NULL, v_now);

    -- Every one of these attempts is closed now: their own deadlines mean
    -- nothing any more (a later attempt of the job names another run_lease).
    DELETE FROM awa.attempt_state s
    USING unnest(v_job_ids, v_run_leases) AS c (job_id, run_lease)
    WHERE s.job_id = c.job_id AND s.deadline_run_lease = c.run_lease AND s.progress IS NULL;
    UPDATE awa.attempt_state s
    SET deadline_at = NULL, deadline_run_lease = NULL, deadline_claim_slot = NULL, deadline_receipt_id = NULL
    FROM unnest(v_job_ids, v_run_leases) AS c (job_id, run_lease)
    WHERE s.job_id = c.job_id AND s.deadline_run_lease = c.run_lease;
END;
$$;
