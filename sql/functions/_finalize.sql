-- awa._finalize(action, outcome, job_ids, run_leases, claim_slots, receipt_ids,
--               messages, run_ats, now): the body of every guarded finalizer.
-- Checks the parallel arrays (AW010: NULL array or element, different lengths,
-- more than 10000 items, snooze without a run_at), closes the still-open
-- attempts through awa._close_claims (closure outcome = outcome) and routes
-- them: 'complete' appends compact terminal history (one
-- done_completions row per ready slot and queue) and deletes the jobs'
-- progress (awa.attempt_state); 'park' goes through awa._park_closed; other
-- actions through awa._route_closed. Returns an 'applied' row per closed item and a
-- 'stale' row per other item; stale items change nothing.
-- Isolation: first calls awa._require_read_committed('awa.<action>_jobs'),
-- the guard of the public finalizers (the rescues and cancel_job have
-- already passed their own).
-- Called by the public finalizers, the rescues and awa.cancel_job.
CREATE FUNCTION awa._finalize(
    p_action      text,
    p_outcome     text,
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[],
    p_messages    text[],
    p_run_ats     timestamptz[],
    p_now         timestamptz
)
RETURNS SETOF awa.finalize_result
LANGUAGE plpgsql
-- Short statements over many partitions: JIT compilation would cost far
-- more than it saves.
SET jit = off
AS $$
DECLARE
    v_now    timestamptz := coalesce(p_now, now());
    v_n      int := cardinality(p_job_ids);
    v_closed awa._closed_claim[];
    v_ords     int[];
    v_jobs     bigint[];
    v_leases   bigint[];
    v_cslots   int[];
    v_receipts bigint[];
    v_rslots   int[];
    v_lane_ids int[];
    v_seqs     bigint[];
    v_queues   text[];
BEGIN
    PERFORM awa._require_read_committed('awa.' || p_action || '_jobs');
    IF p_job_ids IS NULL OR p_run_leases IS NULL OR p_claim_slots IS NULL OR p_receipt_ids IS NULL THEN
        RAISE EXCEPTION 'awa: job_ids, run_leases, claim_slots and receipt_ids must not be null'
            USING ERRCODE = 'AW010';
    END IF;
    IF cardinality(p_run_leases) <> v_n OR cardinality(p_claim_slots) <> v_n OR cardinality(p_receipt_ids) <> v_n
       OR (p_messages IS NOT NULL AND cardinality(p_messages) <> v_n)
       OR (p_run_ats IS NOT NULL AND cardinality(p_run_ats) <> v_n) THEN
        RAISE EXCEPTION 'awa: parallel arrays differ in length (job_ids has %)', v_n USING ERRCODE = 'AW010';
    END IF;
    IF v_n > 10000 THEN
        RAISE EXCEPTION 'awa: at most 10000 items per call, got %', v_n USING ERRCODE = 'AW010';
    END IF;
    IF array_position(p_job_ids, NULL) IS NOT NULL OR array_position(p_run_leases, NULL) IS NOT NULL
       OR array_position(p_claim_slots, NULL) IS NOT NULL OR array_position(p_receipt_ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'awa: job_ids, run_leases, claim_slots and receipt_ids must not hold nulls'
            USING ERRCODE = 'AW010';
    END IF;
    IF p_action = 'snooze' AND (p_run_ats IS NULL OR array_position(p_run_ats, NULL) IS NOT NULL) THEN
        RAISE EXCEPTION 'awa: snooze needs a run_at for every job' USING ERRCODE = 'AW010';
    END IF;
    IF v_n = 0 THEN
        RETURN;
    END IF;

    SELECT c.* INTO v_ords, v_jobs, v_leases, v_cslots, v_receipts, v_rslots, v_lane_ids, v_seqs, v_queues
    FROM awa._close_claims(p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids, p_outcome, v_now) AS c;

    IF p_action = 'complete' THEN
        -- One row per ready slot and queue, its arrays in item order. Nearly
        -- always one of each (a slot changes at a queue-ring rotation): the
        -- arrays as awa._close_claims returned them, with no pass over the items.
        IF cardinality(v_ords) = 0 THEN
            NULL;
        ELSIF v_rslots <@ ARRAY[v_rslots[1]] AND v_queues <@ ARRAY[v_queues[1]] THEN
            INSERT INTO awa.done_completions (
                ready_slot, batch_id, queue, completed_at, job_ids, run_leases, lane_ids, lane_seqs)
            VALUES (v_rslots[1], nextval('awa.completion_batch_id_seq'), v_queues[1], v_now,
                    v_jobs, v_leases, v_lane_ids, v_seqs);
        ELSE
            INSERT INTO awa.done_completions (
                ready_slot, batch_id, queue, completed_at, job_ids, run_leases, lane_ids, lane_seqs)
            SELECT g.ready_slot, nextval('awa.completion_batch_id_seq'), g.queue, v_now,
                   g.job_ids, g.run_leases, g.lane_ids, g.lane_seqs
            FROM (SELECT c.ready_slot, c.queue,
                         array_agg(c.job_id ORDER BY c.ord) AS job_ids, array_agg(c.run_lease ORDER BY c.ord) AS run_leases,
                         array_agg(c.lane_id ORDER BY c.ord) AS lane_ids, array_agg(c.lane_seq ORDER BY c.ord) AS lane_seqs
                  FROM unnest(v_ords, v_rslots, v_queues, v_jobs, v_leases, v_lane_ids, v_seqs)
                       AS c (ord, ready_slot, queue, job_id, run_lease, lane_id, lane_seq)
                  GROUP BY c.ready_slot, c.queue) AS g;
        END IF;
        -- Success clears the progress checkpoint (docs/storage.md, "Attempt
        -- leases"): one index probe per job, a write only for jobs that have one.
        DELETE FROM awa.attempt_state s WHERE s.job_id = ANY (v_jobs);

        RETURN QUERY
        SELECT unnest(v_jobs), unnest(v_leases), 'applied'::awa.finalize_outcome, 'completed'::awa.job_state;
    ELSIF cardinality(v_ords) > 0 THEN
        v_closed := ARRAY(
            SELECT ROW(c.ord, c.job_id, c.run_lease, c.claim_slot, c.receipt_id, c.ready_slot, c.lane_id, c.lane_seq,
                       c.queue)::awa._closed_claim
            FROM unnest(v_ords, v_jobs, v_leases, v_cslots, v_receipts, v_rslots, v_lane_ids, v_seqs, v_queues)
                 WITH ORDINALITY AS c (ord, job_id, run_lease, claim_slot, receipt_id, ready_slot, lane_id, lane_seq,
                                       queue, n)
            ORDER BY c.n);
        IF p_action = 'park' THEN
            RETURN QUERY SELECT * FROM awa._park_closed(v_closed, v_now);
        ELSE
            RETURN QUERY SELECT * FROM awa._route_closed(v_closed, p_action, p_messages, p_run_ats, v_now);
        END IF;
    END IF;

    -- The items not applied, in item order (none: nearly always).
    IF cardinality(v_ords) < v_n THEN
        RETURN QUERY
        SELECT i.job_id, i.run_lease, 'stale'::awa.finalize_outcome, NULL::awa.job_state
        FROM unnest(p_job_ids, p_run_leases) WITH ORDINALITY AS i (job_id, run_lease, ord)
        LEFT JOIN unnest(v_ords) AS c (ord) ON c.ord = i.ord
        WHERE c.ord IS NULL
        ORDER BY i.ord;
    END IF;
END;
$$;
