-- Read surfaces. Hydrated views over the planes; not write surfaces.

-- The claim cursor of each lane, the one definition of the rule: every ready
-- row of the lane at or below claim_seq has been claimed or tombstoned.
-- claim_seq = greatest(floor, newest claim mark); floor_seq is the floor
-- alone, a cheap lower bound. Functions that decide a write on the cursor
-- (claim, cancel, the notify rule, the prune proof) read this view in a
-- PL/pgSQL statement of their own, never through a function call: the
-- statement locks every marks partition (the cursor ring) before it takes its
-- snapshot, so a reader that waited for prune's TRUNCATE sees the floor prune
-- raised (docs/storage.md, "The claim cursor").
CREATE VIEW awa.claim_cursors AS
-- The newest mark is read as ORDER BY ... DESC LIMIT 1, not max(): with
-- statistics that underestimate a lane's marks the planner would aggregate
-- all of them; this form walks each cursor slot's index backwards for one entry
-- (a Merge Append; callers that can set enable_sort = off, so that a sort of
-- the lane's marks never wins on a misestimate). A LATERAL join, not a
-- scalar subquery, so a join with ready rows (awa.jobs) reads it once per
-- lane, not once per row.
SELECT h.lane_id, h.claim_seq AS floor_seq, greatest(h.claim_seq, m.claim_seq) AS claim_seq
FROM awa.queue_claim_heads h
LEFT JOIN LATERAL (SELECT m.claim_seq FROM awa.cursor_marks m WHERE m.lane_id = h.lane_id
                   ORDER BY m.claim_seq DESC LIMIT 1) AS m ON true;

COMMENT ON VIEW awa.claim_cursors IS 'claim cursor of each lane: greatest(floor, newest claim mark) (read-only)';

-- The open receipts, the one definition of "an attempt still open": every
-- item of a claim batch (receipt awa._receipt_id(batch_id, item)) that no
-- closure of its claim slot covers. The closure probe is a scalar subquery,
-- so it stays a per-item probe of the closures' GiST index (as a join, the
-- planner may hash a slot's closures and test every item against each);
-- callers' conditions on the batch (slot, age, deadline, awa._claim_batch_closed)
-- are applied per batch before it. Internal: used by cancel_job, both rescues
-- and prune's carry (awa._close_claims probes the receipts it is given;
-- awa.jobs writes the rule as an anti-join, see there).
CREATE VIEW awa._open_receipts AS
SELECT b.claim_slot, b.batch_id, b.issued_slot, b.ready_slot, b.queue, b.claimed_at, b.instance_id, b.deadline_at,
       cardinality(b.job_ids) AS batch_size, i.item, awa._receipt_id(b.batch_id, i.item) AS receipt_id,
       i.job_id, i.run_lease, i.lane_id, i.lane_seq
FROM awa.claim_batches b
CROSS JOIN LATERAL unnest(b.job_ids, b.run_leases, b.lane_ids, b.lane_seqs)
    WITH ORDINALITY AS i (job_id, run_lease, lane_id, lane_seq, item)
WHERE (SELECT true FROM awa.claim_closures c
       WHERE c.claim_slot = b.claim_slot AND c.receipts @> awa._receipt_id(b.batch_id, i.item)
       LIMIT 1) IS NULL;

COMMENT ON VIEW awa._open_receipts IS 'internal: claim batch items whose receipt no closure covers (open attempts)';

-- The live leases: those whose attempt is still open, the rule of
-- awa._attempt_open written as a join, so a slot's leases are checked in one
-- pass (a hash join on their claim batches, then a closure probe per lease
-- whose batch item matches) rather than one function call each: with 10,000
-- dead leases of parked jobs in a slot, 0.5 s against 6.4 s here. Internal:
-- the lease ring's proof (awa._slot_blocker) and carry
-- (awa._carry_live_leases).
CREATE VIEW awa._live_leases AS
SELECT l.*
FROM awa.leases l
WHERE EXISTS (SELECT 1 FROM awa.claim_batches b
              WHERE b.batch_id = awa._receipt_batch_id(l.receipt_id) AND b.issued_slot = l.claim_slot
                AND b.job_ids[awa._receipt_item(l.receipt_id)] = l.job_id
                AND b.run_leases[awa._receipt_item(l.receipt_id)] = l.run_lease
                AND NOT EXISTS (SELECT 1 FROM awa.claim_closures c
                                WHERE c.claim_slot = b.claim_slot AND c.receipts @> l.receipt_id));

COMMENT ON VIEW awa._live_leases IS 'internal: leases whose attempt is still open';

-- The read surfaces awa.jobs and awa.terminal_jobs are views over functions
-- that read the internal views below in a subtransaction and roll it back, so
-- a reader's transaction keeps no lock on the rings (docs/storage.md, "Read
-- surfaces"). The internal views are the one definition of each surface.

-- Terminal history the queue ring still retains: compact completion batches
-- expanded against their per-row ready rows (those of batch rows:
-- awa._batch_jobs), plus failed/cancelled snapshots. Part of
-- awa._terminal_jobs_now and of awa._live_jobs_now.
CREATE VIEW awa._ring_terminal_jobs AS
SELECT r.job_id AS id, r.queue, r.priority, r.kind, 'completed'::awa.job_state AS state, r.args,
       r.attempt + 1 AS attempt, r.max_attempts, i.run_lease, r.run_at, r.created_at,
       cb.completed_at AS finalized_at, r.tags, r.metadata, r.errors
FROM awa.done_completions cb
CROSS JOIN LATERAL unnest(cb.run_leases, cb.lane_ids, cb.lane_seqs) AS i (run_lease, lane_id, lane_seq)
JOIN awa.ready_entries r
  ON r.lane_id = i.lane_id AND r.lane_seq = i.lane_seq AND r.ready_slot = cb.ready_slot
UNION ALL
SELECT d.job_id, d.queue, d.priority, d.kind, d.state, d.args, d.attempt, d.max_attempts, d.run_lease,
       d.run_at, d.created_at, d.finalized_at, d.tags, d.metadata, d.errors
FROM awa.done_entries d;

COMMENT ON VIEW awa._ring_terminal_jobs IS 'internal: the terminal jobs the queue ring still holds';

-- Every archived job, one row each: every chunk expanded (a whole read; a
-- lookup by id goes through awa._archived_job, a page through
-- awa._archive_page, which read chunks by their id bounds). A job is copied
-- there by the prune that truncates its slot, in the same transaction, so it
-- shows here or in the ring, never both.
CREATE VIEW awa._archived_jobs_now AS
SELECT a.job_id AS id, a.queue, a.priority, a.kind, a.state, a.args, a.attempt, a.max_attempts, a.run_lease,
       a.run_at, a.created_at, a.finalized_at, a.tags, a.metadata, a.errors, a.expires_at
FROM awa.archived_chunks c
CROSS JOIN LATERAL awa._archive_jobs(c) AS a;

COMMENT ON VIEW awa._archived_jobs_now IS 'internal: every archived job, its chunk expanded';

-- Every job the archive and the batch plane (awa._batch_jobs) do not hold,
-- one row per job: the backlog, the rings, the DLQ and the parked plane. A DLQ job shows as failed with dlq =
-- true. A filter on the id reaches every branch (awa.job, awa._job_state add
-- the archive's lookup by id, awa._archived_job).
CREATE VIEW awa._live_jobs_now AS
SELECT d.job_id AS id, d.queue, d.priority, d.kind, d.state, d.args, d.attempt, d.max_attempts, d.run_lease,
       d.run_at, d.created_at, NULL::timestamptz AS claimed_at, NULL::timestamptz AS finalized_at,
       d.tags, d.metadata, d.errors, false AS dlq
FROM awa.deferred_jobs d
UNION ALL
SELECT r.job_id, r.queue, r.priority, r.kind, 'available'::awa.job_state, r.args, r.attempt, r.max_attempts,
       r.run_lease, r.run_at, r.created_at, NULL, NULL, r.tags, r.metadata, r.errors, false
FROM awa.ready_entries r
JOIN awa.claim_cursors h ON h.lane_id = r.lane_id
WHERE r.lane_seq > h.claim_seq
  AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                  WHERE t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq AND t.ready_slot = r.ready_slot)
UNION ALL
-- Running: the open-receipt rule of awa._open_receipts, written as an
-- anti-join here: this branch reads every retained batch, and for a whole-table
-- read the planner's hashed anti-join is several times faster than the view's
-- per-item probe (which the functions need, to probe only the batches they chose).
-- An open attempt with a callback registered and not resumed is
-- waiting_external (docs/storage.md, "Callbacks"): one probe of the small
-- awa.callbacks per running job. The new enum value is named as text cast at
-- run time, so the upgrade that adds it can create this view in its
-- transaction.
SELECT r.job_id, r.queue, r.priority, r.kind,
       CASE WHEN EXISTS (SELECT 1 FROM awa.callbacks x
                         WHERE x.job_id = r.job_id AND x.run_lease = i.run_lease AND x.resumed_at IS NULL)
            THEN 'waiting_external'::text::awa.job_state ELSE 'running'::awa.job_state END,
       r.args, r.attempt + 1, r.max_attempts,
       i.run_lease, r.run_at, r.created_at, b.claimed_at, NULL, r.tags, r.metadata, r.errors, false
FROM awa.claim_batches b
CROSS JOIN LATERAL unnest(b.run_leases, b.lane_ids, b.lane_seqs) WITH ORDINALITY AS i (run_lease, lane_id, lane_seq, k)
JOIN awa.ready_entries r
  ON r.lane_id = i.lane_id AND r.lane_seq = i.lane_seq AND r.ready_slot = b.ready_slot
WHERE NOT EXISTS (SELECT 1 FROM awa.claim_closures c
                  WHERE c.claim_slot = b.claim_slot AND c.receipts @> awa._receipt_id(b.batch_id, i.k))
UNION ALL
SELECT t.id, t.queue, t.priority, t.kind, t.state, t.args, t.attempt, t.max_attempts, t.run_lease,
       t.run_at, t.created_at, NULL, t.finalized_at, t.tags, t.metadata, t.errors, false
FROM awa._ring_terminal_jobs t
UNION ALL
SELECT x.job_id, x.queue, x.priority, x.kind, 'failed'::awa.job_state, x.args, x.attempt, x.max_attempts,
       x.run_lease, x.run_at, x.created_at, NULL, x.failed_at, x.tags, x.metadata, x.errors, true
FROM awa.dlq_entries x
UNION ALL
-- Parked (awa.external_waits): the parked attempt counts as one.
SELECT w.job_id, w.queue, w.priority, w.kind, 'waiting_external'::text::awa.job_state, w.args, w.attempt + 1,
       w.max_attempts, w.run_lease, w.run_at, w.created_at, NULL, NULL, w.tags, w.metadata, w.errors, false
FROM awa.external_waits w;

COMMENT ON VIEW awa._live_jobs_now IS 'internal: every job but the archived ones and the batch plane''s (awa._jobs_now, awa.job)';

-- awa._batch_jobs(from, to, terminal_only): the jobs of the batch plane
-- (awa.ready_batches) with ids in [from, to], one row each, as
-- awa._live_jobs_now shows them: available (above its lane's cursor, not
-- tombstoned), running or waiting_external (an open claim of its position),
-- completed (a completion batch of its position); terminal_only, the
-- completed ones alone. Its other states live in the per-row planes (a
-- cancelled or failed snapshot in done_entries, a retry in the backlog, the
-- DLQ, a parked row), which awa._live_jobs_now reads. The branches below are
-- awa._live_jobs_now's and awa._ring_terminal_jobs' over the batch items
-- instead of ready_entries. A function, not a view branch, so a lookup by id
-- reaches the first_id index: a filter on the view's id would apply after
-- every row was expanded (awa.job, awa._job_state pass [id, id]; the whole
-- reads, awa._jobs_now and awa._terminal_jobs_now, every id). Each row in
-- range is expanded once (awa._batch_items, only its items in range), then
-- joined by position (docs/batchready.md, "Every reader of ready rows").
-- Read-only; takes the locks of what it reads (its callers lock the rings
-- first: awa._lock_ring_reads).
CREATE FUNCTION awa._batch_jobs(p_from bigint, p_to bigint, p_terminal_only boolean DEFAULT false)
RETURNS SETOF awa._live_jobs_now
LANGUAGE sql
STABLE
AS $$
    -- The rows taken whole first, so their out-of-line arrays are fetched
    -- once each (handed straight to awa._batch_items, the planner reads some
    -- columns from the table and some from the row built of them: twice).
    WITH x AS MATERIALIZED (
        SELECT b FROM awa.ready_batches b WHERE b.first_id > p_from - 1024 AND b.first_id <= p_to
    ),
    r AS MATERIALIZED (
        SELECT i.*
        FROM x
        CROSS JOIN LATERAL awa._batch_items(
            x.b, (x.b).first_seq + greatest(p_from - (x.b).first_id, 0) - 1,
            (least(p_to - (x.b).first_id, 1023) + 1 - greatest(p_from - (x.b).first_id, 0))::int) AS i
    )
    SELECT r.job_id, r.queue, r.priority, r.kind, 'available'::awa.job_state, r.args, r.attempt, r.max_attempts,
           r.run_lease, r.run_at, r.created_at, NULL::timestamptz, NULL::timestamptz, r.tags, r.metadata, r.errors,
           false
    FROM r
    JOIN awa.claim_cursors h ON h.lane_id = r.lane_id
    WHERE NOT p_terminal_only
      AND r.lane_seq > h.claim_seq
      AND NOT EXISTS (SELECT 1 FROM awa.ready_tombstones t
                      WHERE t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq AND t.ready_slot = r.ready_slot)
    UNION ALL
    SELECT r.job_id, r.queue, r.priority, r.kind,
           CASE WHEN EXISTS (SELECT 1 FROM awa.callbacks x
                             WHERE x.job_id = r.job_id AND x.run_lease = i.run_lease AND x.resumed_at IS NULL)
                THEN 'waiting_external'::text::awa.job_state ELSE 'running'::awa.job_state END,
           r.args, r.attempt + 1, r.max_attempts,
           i.run_lease, r.run_at, r.created_at, b.claimed_at, NULL, r.tags, r.metadata, r.errors, false
    FROM awa.claim_batches b
    CROSS JOIN LATERAL unnest(b.run_leases, b.lane_ids, b.lane_seqs) WITH ORDINALITY AS i (run_lease, lane_id, lane_seq, k)
    JOIN r ON r.lane_id = i.lane_id AND r.lane_seq = i.lane_seq AND r.ready_slot = b.ready_slot
    WHERE NOT p_terminal_only
      AND NOT EXISTS (SELECT 1 FROM awa.claim_closures c
                      WHERE c.claim_slot = b.claim_slot AND c.receipts @> awa._receipt_id(b.batch_id, i.k))
    UNION ALL
    SELECT r.job_id, r.queue, r.priority, r.kind, 'completed'::awa.job_state, r.args, r.attempt + 1, r.max_attempts,
           i.run_lease, r.run_at, r.created_at, NULL, cb.completed_at, r.tags, r.metadata, r.errors, false
    FROM awa.done_completions cb
    CROSS JOIN LATERAL unnest(cb.run_leases, cb.lane_ids, cb.lane_seqs) AS i (run_lease, lane_id, lane_seq)
    JOIN r ON r.lane_id = i.lane_id AND r.lane_seq = i.lane_seq AND r.ready_slot = cb.ready_slot
$$;

-- Terminal history: the queue ring's (both ready planes) and the archive's
-- (docs/storage.md, "History archive").
-- Progress (awa.attempt_state, docs/storage.md "Read surfaces"): one join
-- outside the UNION ALL (a whole read: one hash join; awa._jobs_now, which
-- does not read these two columns, has the planner remove it).
CREATE VIEW awa._terminal_jobs_now AS
SELECT t.*, s.progress, s.updated_at AS progress_at
FROM (
SELECT * FROM awa._ring_terminal_jobs
UNION ALL
SELECT b.id, b.queue, b.priority, b.kind, b.state, b.args, b.attempt, b.max_attempts, b.run_lease,
       b.run_at, b.created_at, b.finalized_at, b.tags, b.metadata, b.errors
FROM awa._batch_jobs(0, 9223372036854775807, true) AS b
UNION ALL
SELECT a.id, a.queue, a.priority, a.kind, a.state, a.args, a.attempt, a.max_attempts, a.run_lease,
       a.run_at, a.created_at, a.finalized_at, a.tags, a.metadata, a.errors
FROM awa._archived_jobs_now a
) AS t
LEFT JOIN awa.attempt_state s ON s.job_id = t.id;

COMMENT ON VIEW awa._terminal_jobs_now IS 'internal: the body of awa.terminal_jobs (read through awa._read_terminal_jobs)';

-- Every job in any state, one row per job: the live planes (the batch
-- plane's jobs through awa._batch_jobs) and the archive.
-- Terminal jobs appear while the queue ring or the archive retains them.
-- Progress: every row joins awa.attempt_state once, outside the UNION ALL
-- (one hash join for a whole-view read).
-- Appended last, so that CREATE OR REPLACE VIEW applies it to an install.
CREATE VIEW awa._jobs_now AS
SELECT j.*, s.progress, s.updated_at AS progress_at
FROM (
SELECT * FROM awa._live_jobs_now
UNION ALL
SELECT * FROM awa._batch_jobs(0, 9223372036854775807)
UNION ALL
SELECT a.id, a.queue, a.priority, a.kind, a.state, a.args, a.attempt, a.max_attempts, a.run_lease,
       a.run_at, a.created_at, NULL, a.finalized_at, a.tags, a.metadata, a.errors, false
FROM awa._archived_jobs_now a
) AS j
LEFT JOIN awa.attempt_state s ON s.job_id = j.id;

COMMENT ON VIEW awa._jobs_now IS 'internal: the body of awa.jobs (read through awa._read_jobs and awa.job)';

-- awa._read_terminal_jobs() / awa._read_jobs(): the rows of an internal view,
-- read in one statement (locks, then snapshot; the rings' tables locked first in
-- prune's order, awa._lock_ring_reads) inside a subtransaction that
-- awa._end_ring_read rolls back (AW099, caught here), releasing every lock the
-- read took; the rows stay in the function's tuplestore. Outside READ
-- COMMITTED, awa._end_ring_read first raises 40001 if a ring slot read was
-- truncated after the transaction's snapshot. Defined here, not in
-- sql/functions: the public views below call them. Granted to awa_admin (a
-- view's function calls are checked against its reader). VOLATILE on purpose:
-- a STABLE function would read on its caller's snapshot, taken before its locks.
-- The two are alike on purpose (as awa.job and queue_counts): each view needs a
-- function of its own row type, and PL/pgSQL cannot share the block.
CREATE FUNCTION awa._read_terminal_jobs()
RETURNS SETOF awa._terminal_jobs_now
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    PERFORM awa._lock_ring_reads(ARRAY['queue']);
    RETURN QUERY SELECT * FROM awa._terminal_jobs_now;
    PERFORM awa._end_ring_read('awa.terminal_jobs', ARRAY['queue']);
EXCEPTION WHEN SQLSTATE 'AW099' THEN
    RETURN;
END;
$$;

CREATE FUNCTION awa._read_jobs()
RETURNS SETOF awa._jobs_now
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
    RETURN QUERY SELECT * FROM awa._jobs_now;
    PERFORM awa._end_ring_read('awa.jobs', ARRAY['queue', 'claim', 'cursor']);
EXCEPTION WHEN SQLSTATE 'AW099' THEN
    RETURN;
END;
$$;

-- The public read surfaces. A filter on them is applied to the function's
-- whole output (it does not push down): awa.job(id) reads one job.
CREATE VIEW awa.terminal_jobs AS SELECT * FROM awa._read_terminal_jobs();

COMMENT ON VIEW awa.terminal_jobs IS
    'completed, cancelled and failed jobs retained by the queue ring or the archive (DLQ jobs are in awa.jobs)';

CREATE VIEW awa.jobs AS SELECT * FROM awa._read_jobs();

COMMENT ON VIEW awa.jobs IS 'every job in any state, hydrated from the storage planes (read-only)';
