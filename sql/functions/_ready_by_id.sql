-- awa._ready_by_id(id): the job's ready rows in either plane, as
-- awa.ready_entries rows: its per-row ones (several when it was retried or
-- promoted more than once) by the job-id index, and its batch item, if any:
-- the batch row with first_id in (id - 1024, id] (rows hold disjoint id
-- blocks of 1,024, so at most one can hold it: one short range in each
-- slot's first_id index) that has at least id - first_id + 1 items,
-- expanded for that item only (the row's arrays still decompressed once).
-- Locks: ACCESS SHARE on ready_entries, then ready_batches (their order in
-- awa._ring_tables). Read-only. Called by the readers of a job by id:
-- awa.cancel_job. Readers that only ask whether a plane holds the job
-- (cleanup_attempt_state, cleanup_unique_keys) write the same two probes
-- without the body.
CREATE FUNCTION awa._ready_by_id(p_id bigint)
RETURNS SETOF awa.ready_entries
LANGUAGE sql
STABLE
AS $$
    SELECT r.* FROM awa.ready_entries r WHERE r.job_id = p_id
    UNION ALL
    SELECT i.*
    -- The row taken whole first (LIMIT 1: at most one row holds the id), so
    -- its out-of-line arrays are fetched once: handed straight to
    -- awa._batch_items, the planner reads some of its columns from the table
    -- and some from the row built of them, fetching them twice.
    FROM (SELECT b FROM awa.ready_batches b
          WHERE b.first_id <= p_id AND b.first_id > p_id - 1024 AND p_id < b.first_id + b.n
          LIMIT 1) AS x
    CROSS JOIN LATERAL awa._batch_items(x.b, (x.b).first_seq + (p_id - (x.b).first_id) - 1, 1) AS i
$$;
