-- awa._close_claims(job_ids, run_leases, claim_slots, receipt_ids, outcome, now):
-- the stale-writer guard shared by every finalizer, rescue and cancel.
-- An item is applied when its receipt names a claim batch item holding
-- exactly (job_id, run_lease) and no closure covers the receipt yet; applied
-- items get closure evidence (one claim_closures row per claim slot and
-- queue) and are returned with the location of their ready row, as parallel
-- arrays in item order (arrays, not a set of composite rows: the completion
-- writes them as they are, see awa._finalize). Other items are stale: nothing
-- is written for them. A receipt repeated in one call is applied once (its
-- first occurrence).
-- The batch is found by its id (awa._receipt_batch_id) and the slot its receipts
-- were issued in (issued_slot), in whatever claim slot it is now: prune
-- carries the batches of open attempts forward into the current slot
-- (docs/storage.md, "Long attempts"). Closures go to the batch's slot. The
-- issued slot is looked in first (one partition's index per receipt, pruned
-- at run time); only receipts not found there are looked for in every slot
-- (a carried batch, or a stale receipt), so a claim ring holding many slots
-- (long attempts, a blocked prune) does not make every finalizer probe them all.
-- Locks: an advisory transaction lock per claim batch (claim_batch, batch_id),
-- taken in batch order before the check, so two closers of one attempt
-- serialize and the second sees the first's closure.
-- Called by awa._finalize only.
CREATE FUNCTION awa._close_claims(
    p_job_ids     bigint[],
    p_run_leases  bigint[],
    p_claim_slots int[],
    p_receipt_ids bigint[],
    p_outcome     text,
    p_now         timestamptz,
    OUT ords        int[],
    OUT job_ids     bigint[],
    OUT run_leases  bigint[],
    OUT claim_slots int[],
    OUT receipt_ids bigint[],
    OUT ready_slots int[],
    OUT lane_ids    int[],
    OUT lane_seqs   bigint[],
    OUT queues      text[]
)
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(awa._lock_key('claim_batch'), awa._lock_claim_batch_id(b.batch_id))
    FROM (SELECT DISTINCT awa._receipt_batch_id(r) AS batch_id FROM unnest(p_receipt_ids) AS r) AS b
    ORDER BY b.batch_id;

    -- A new statement, so a new snapshot: closures committed by whoever held
    -- the locks before us are visible here. The open-receipt rule of
    -- awa._open_receipts, tested once per claim batch the receipts name
    -- (materialized: planned as a join, the probes ran once per receipt):
    -- one primary-key probe of the batch in its issued slot (one partition,
    -- pruned at run time) and one index probe for the closures overlapping
    -- the batch's receipt range, merged into one multirange each receipt is
    -- tested against. 100-job complete, closing statement: 0.68 -> 0.3 ms
    -- (bench/sql/claim_complete_profile.sh).
    -- Both probes are correlated LIMIT/aggregate subqueries: as joins, the
    -- planner, which sees the often-truncated claim slots as nearly empty,
    -- hashed whole slots, read every slot's batches and probed every slot's
    -- closures (a burn-down with long attempts keeping the claim ring full:
    -- 31 ms per 500-job call).
    -- The closures probe takes every receipt a batch can hold (1024 items),
    -- not its size: cardinality(job_ids) of the stored array decompressed it
    -- once for each closure row of a small slot read by sequential scan.
    -- The arrays are aggregated from a subquery in item order, with no join
    -- or grouping at the aggregating level, so they keep that order (what the
    -- PostgreSQL manual, "Aggregate Expressions", says works); ORDER BY
    -- within each of the nine aggregates would sort the items nine times.
    SELECT coalesce(array_agg(x.ord), '{}'), coalesce(array_agg(x.job_id), '{}'),
           coalesce(array_agg(x.run_lease), '{}'), coalesce(array_agg(x.claim_slot), '{}'),
           coalesce(array_agg(x.receipt_id), '{}'), coalesce(array_agg(x.ready_slot), '{}'),
           coalesce(array_agg(x.lane_id), '{}'), coalesce(array_agg(x.lane_seq), '{}'),
           coalesce(array_agg(x.queue), '{}')
    INTO ords, job_ids, run_leases, claim_slots, receipt_ids, ready_slots, lane_ids, lane_seqs, queues
    FROM (
        WITH b AS MATERIALIZED (
            SELECT b.claim_slot, t.batch_id, b.ready_slot, b.queue,
                   -- Copies, not the stored (compressed) arrays: a subscript
                   -- of the stored array decompresses it each time.
                   b.job_ids || '{}'::bigint[] AS job_ids, b.run_leases || '{}'::bigint[] AS run_leases,
                   b.lane_ids || '{}'::int[] AS lane_ids, b.lane_seqs || '{}'::bigint[] AS lane_seqs,
                   (SELECT range_agg(c.receipts)
                    FROM awa.claim_closures c
                    WHERE c.claim_slot = b.claim_slot
                      AND c.receipts && awa._batch_receipts(t.batch_id, 1024)) AS closed
            FROM (SELECT DISTINCT u.claim_slot, awa._receipt_batch_id(u.receipt_id) AS batch_id
                  FROM (SELECT unnest(p_claim_slots) AS claim_slot, unnest(p_receipt_ids) AS receipt_id) AS u) AS t
            CROSS JOIN LATERAL (
                SELECT b.claim_slot, b.ready_slot, b.queue, b.job_ids, b.run_leases, b.lane_ids, b.lane_seqs
                FROM awa.claim_batches b
                WHERE b.claim_slot = t.claim_slot AND b.batch_id = t.batch_id AND b.issued_slot = t.claim_slot
                LIMIT 1) AS b)
        SELECT i.ord, i.job_id, i.run_lease, b.claim_slot, i.receipt_id,
               b.ready_slot, b.lane_ids[i.k] AS lane_id, b.lane_seqs[i.k] AS lane_seq, b.queue
        FROM b
        JOIN (SELECT DISTINCT ON (u.receipt_id) u.*, awa._receipt_batch_id(u.receipt_id) AS batch_id,
                     awa._receipt_item(u.receipt_id) AS k
              FROM (SELECT unnest(p_job_ids) AS job_id, unnest(p_run_leases) AS run_lease,
                           unnest(p_claim_slots) AS claim_slot, unnest(p_receipt_ids) AS receipt_id,
                           generate_series(1, cardinality(p_receipt_ids)) AS ord) AS u
              ORDER BY u.receipt_id, u.ord) AS i
          ON i.claim_slot = b.claim_slot AND i.batch_id = b.batch_id
        WHERE b.job_ids[i.k] = i.job_id AND b.run_leases[i.k] = i.run_lease
          AND NOT coalesce(b.closed @> i.receipt_id, false)
        ORDER BY i.ord) AS x;

    -- The rest, in any other slot: a batch prune carried forward (or a stale
    -- receipt, found nowhere). Rare: only when an item was not applied above.
    IF cardinality(ords) < cardinality(p_receipt_ids) THEN
        SELECT coalesce(array_agg(x.ord), '{}'), coalesce(array_agg(x.job_id), '{}'),
               coalesce(array_agg(x.run_lease), '{}'), coalesce(array_agg(x.claim_slot), '{}'),
               coalesce(array_agg(x.receipt_id), '{}'), coalesce(array_agg(x.ready_slot), '{}'),
               coalesce(array_agg(x.lane_id), '{}'), coalesce(array_agg(x.lane_seq), '{}'),
               coalesce(array_agg(x.queue), '{}')
        INTO ords, job_ids, run_leases, claim_slots, receipt_ids, ready_slots, lane_ids, lane_seqs, queues
        FROM (
            SELECT a.* FROM unnest(ords, job_ids, run_leases, claim_slots, receipt_ids, ready_slots, lane_ids,
                                   lane_seqs, queues)
                            AS a (ord, job_id, run_lease, claim_slot, receipt_id, ready_slot, lane_id, lane_seq, queue)
            UNION ALL
            SELECT i.ord::int, i.job_id, i.run_lease, b.claim_slot, i.receipt_id,
                   b.ready_slot, b.lane_ids[i.k], b.lane_seqs[i.k], b.queue
            FROM (SELECT DISTINCT ON (u.receipt_id) u.*, awa._receipt_item(u.receipt_id) AS k
                  FROM unnest(p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids)
                       WITH ORDINALITY AS u (job_id, run_lease, claim_slot, receipt_id, ord)
                  WHERE u.receipt_id <> ALL (receipt_ids)
                  ORDER BY u.receipt_id, u.ord) AS i
            CROSS JOIN LATERAL (
                SELECT b.claim_slot, b.ready_slot, b.lane_ids, b.lane_seqs, b.queue
                FROM awa.claim_batches b
                WHERE b.claim_slot <> i.claim_slot AND b.batch_id = awa._receipt_batch_id(i.receipt_id)
                  AND b.issued_slot = i.claim_slot
                  AND b.job_ids[i.k] = i.job_id AND b.run_leases[i.k] = i.run_lease
                LIMIT 1) AS b
            WHERE (SELECT 1 FROM awa.claim_closures c
                   WHERE c.claim_slot = b.claim_slot AND c.receipts @> i.receipt_id LIMIT 1) IS NULL
            ORDER BY 1) AS x;
    END IF;

    -- Receipts sorted before range_agg: merged in order, a 1000-item call's
    -- multirange costs 0.3 ms, against 1 ms when workers finish in any order.
    INSERT INTO awa.claim_closures (claim_slot, queue, outcome, closed_at, receipts)
    SELECT c.claim_slot, c.queue, p_outcome, p_now, range_agg(int8range(c.receipt_id, c.receipt_id + 1))
    FROM (SELECT unnest(claim_slots) AS claim_slot, unnest(queues) AS queue, unnest(receipt_ids) AS receipt_id
          ORDER BY 1, 2, 3) AS c
    GROUP BY c.claim_slot, c.queue;
END;
$$;
