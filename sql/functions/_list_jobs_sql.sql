-- awa._list_jobs_sql(id, states, queue, kind, tag, from, to, after, limit):
-- the one statement awa.list_jobs (id NULL) and awa.get_job (id given) run,
-- as text with its filters as literals, so that it is planned for them: a
-- branch per plane that can hold a job of the states asked for, each reading
-- its plane in job order (newest first) through an index, each at most
-- `limit` rows, merged (Merge Append) under the page's LIMIT, then each row's
-- progress. Which index serves which filter, and what costs a filter with no
-- exact index: docs/storage.md, "Paging".
--   backlog  deferred_jobs (pkey)            scheduled, retryable
--   parked   external_waits (pkey)           waiting_external
--   DLQ      dlq_entries (pkey)              failed (dlq true)
--   done     done_entries (job_id)           completed, failed, cancelled
--   ring     ready_entries (job_id): a ready row above its lane's claim
--            cursor is available; below it, claimed: completed when a
--            completion batch of its slot holds this attempt, else skipped
--            when a newer ready row or another plane holds the job (that
--            branch lists it), else running while a claim batch holds
--            the attempt open (waiting_external with an open callback),
--            else nothing (it left every plane: a DLQ job purged)
--   batch    ready_batches (first_id): each row's items (awa._batch_items)
--            classified as ready rows are; rows hold disjoint id blocks, so
--            the rows walked newest first, each row's items sorted newest
--            first (at most 1,024), are in job order; the walk stops at a
--            page, which the branch sorts (at most `limit`); an id: the row
--            whose block can hold it (first_id within 1,024 below it)
--   archive  awa._archive_page: a top-k merge over archived_chunks walked
--            by max_job_id ((max_job_id, min_job_id), or the queue's, kind's
--            or states' index; a tag through archived_tags); it returns at
--            most `limit` jobs, unordered, so its branch sorts that many;
--            an id: awa._archived_job
-- The time range is on finalized_at: a range lists finished jobs only. An id
-- (get_job) reads every branch by that id, unordered. No branch left (a
-- range with unfinished states only): a statement that returns nothing.
-- No lock, no write. Inputs are checked by its callers. Called by awa.list_jobs,
-- awa.get_job and the EXPLAIN tests (internal/listing).
CREATE FUNCTION awa._list_jobs_sql(p_id bigint, p_states awa.job_state[], p_queue text, p_kind text, p_tag text,
                                   p_from timestamptz, p_to timestamptz, p_after bigint, p_limit int)
RETURNS text
LANGUAGE plpgsql
STABLE
-- Timestamp literals in ISO, which any DateStyle reads back.
SET datestyle = 'ISO, YMD'
AS $$
DECLARE
    v_states text[] := coalesce(p_states::text[], enum_range(NULL::awa.job_state)::text[]);
    v_timed  boolean := p_from IS NOT NULL OR p_to IS NOT NULL;
    -- The state filter of a branch whose rows have several states (its
    -- alias as %1$s); nothing without one.
    v_only   text := CASE WHEN p_states IS NOT NULL
                          THEN format(' AND %%1$s.state::text = ANY (%L::text[])', p_states::text[]) ELSE '' END;
    v_parts  text[] := '{}';
    v_ring   text[];
    v_cols   text;
    v_state  text;
    v_where  text;
    v_terminal text[];
BEGIN
    -- Backlog: scheduled and retryable jobs (no finalization time).
    IF v_states && ARRAY['scheduled', 'retryable'] AND NOT v_timed THEN
        v_parts := v_parts || format(
            'SELECT d.job_id AS id, d.queue, d.priority, d.kind, d.state, d.args, d.attempt, d.max_attempts,'
            ' d.run_lease, d.run_at, d.created_at, NULL::timestamptz AS claimed_at,'
            ' NULL::timestamptz AS finalized_at, d.tags, d.metadata, d.errors, false AS dlq,'
            ' NULL::timestamptz AS expires_at'
            ' FROM awa.deferred_jobs d WHERE true%s%s',
            format(v_only, 'd'), awa._list_jobs_where('d', NULL, p_id, p_queue, p_kind, p_tag, NULL, NULL, p_after));
    END IF;
    -- Parked jobs: waiting_external, the parked attempt counted.
    IF 'waiting_external' = ANY (v_states) AND NOT v_timed THEN
        v_parts := v_parts || format(
            'SELECT w.job_id, w.queue, w.priority, w.kind, %L::text::awa.job_state, w.args, w.attempt + 1,'
            ' w.max_attempts, w.run_lease, w.run_at, w.created_at, NULL::timestamptz, NULL::timestamptz, w.tags,'
            ' w.metadata, w.errors, false, NULL::timestamptz FROM awa.external_waits w WHERE true%s',
            'waiting_external', awa._list_jobs_where('w', NULL, p_id, p_queue, p_kind, p_tag, NULL, NULL, p_after));
    END IF;
    IF 'failed' = ANY (v_states) THEN
        v_parts := v_parts || format(
            'SELECT x.job_id, x.queue, x.priority, x.kind, %L::awa.job_state, x.args, x.attempt, x.max_attempts,'
            ' x.run_lease, x.run_at, x.created_at, NULL::timestamptz, x.failed_at, x.tags, x.metadata, x.errors,'
            ' true, NULL::timestamptz FROM awa.dlq_entries x WHERE true%s',
            'failed', awa._list_jobs_where('x', 'x.failed_at', p_id, p_queue, p_kind, p_tag, p_from, p_to, p_after));
    END IF;
    -- Terminal snapshots the queue ring still holds.
    IF v_states && ARRAY['completed', 'failed', 'cancelled'] THEN
        v_parts := v_parts || format(
            'SELECT d.job_id, d.queue, d.priority, d.kind, d.state, d.args, d.attempt, d.max_attempts,'
            ' d.run_lease, d.run_at, d.created_at, NULL::timestamptz, d.finalized_at, d.tags, d.metadata, d.errors,'
            ' false, NULL::timestamptz FROM awa.done_entries d WHERE true%s%s',
            format(v_only, 'd'), awa._list_jobs_where('d', 'd.finalized_at', p_id, p_queue, p_kind, p_tag, p_from, p_to,
                                           p_after));
    END IF;
    -- The queue ring's ready rows, classified (see the header): the cursor
    -- (memoized per lane); for a claimed row, whether a completion batch
    -- holds this attempt: for a listing, one hash of the attempts the ring's
    -- completion batches hold (of the time range, with one), built once per
    -- statement when the walk first meets a claimed row; for an id
    -- (get_job), the batches of the row's own slot; only a claimed row no
    -- batch holds probes the other planes. completed_at and a running job's
    -- claimed_at are read per row of the page, from the batches of its slot.
    v_ring := ARRAY(SELECT s FROM unnest(v_states) AS s
                    WHERE s IN ('available', 'running', 'waiting_external', 'completed')
                      AND (NOT v_timed OR s = 'completed'));
    IF cardinality(v_ring) > 0 THEN
        -- A ready row's listing columns (format: the state names, then the
        -- row's alias), over h.above (the row above its lane's cursor) and
        -- s.state; then its state (NULL: not listed by this branch).
        v_cols := '%4$s.job_id, %4$s.queue, %4$s.priority, %4$s.kind, s.state, %4$s.args,'
            ' %4$s.attempt + CASE WHEN h.above THEN 0 ELSE 1 END, %4$s.max_attempts,'
            ' %4$s.run_lease + CASE WHEN h.above THEN 0 ELSE 1 END, %4$s.run_at, %4$s.created_at,'
            ' CASE WHEN s.state::text IN (%1$L, %2$L) THEN (SELECT max(b.claimed_at) FROM awa.claim_batches b'
            ' WHERE b.ready_slot = %4$s.ready_slot AND b.job_ids @> ARRAY[%4$s.job_id]) END,'
            ' CASE WHEN s.state::text = %3$L THEN (SELECT max(cb.completed_at) FROM awa.done_completions cb'
            ' WHERE cb.ready_slot = %4$s.ready_slot AND cb.job_ids @> ARRAY[%4$s.job_id]) END,'
            ' %4$s.tags, %4$s.metadata, %4$s.errors, false, NULL::timestamptz';
        -- A newer ready row of a job is always a per-row one (ready_entries):
        -- the batch plane holds first runs only (run_lease 0).
        v_state := format(
            'CASE'
            ' WHEN h.above THEN CASE WHEN EXISTS (SELECT 1 FROM awa.ready_tombstones t WHERE t.lane_id = r.lane_id'
            ' AND t.lane_seq = r.lane_seq AND t.ready_slot = r.ready_slot OFFSET 0) THEN NULL'
            ' ELSE %3$L::awa.job_state END'
            ' WHEN %5$s THEN %4$L::awa.job_state'
            ' WHEN EXISTS (SELECT 1 FROM awa.ready_entries n WHERE n.job_id = r.job_id'
            ' AND n.run_lease > r.run_lease OFFSET 0)'
            ' OR EXISTS (SELECT 1 FROM awa.deferred_jobs d WHERE d.job_id = r.job_id OFFSET 0)'
            ' OR EXISTS (SELECT 1 FROM awa.dlq_entries d WHERE d.job_id = r.job_id OFFSET 0)'
            ' OR EXISTS (SELECT 1 FROM awa.external_waits d WHERE d.job_id = r.job_id OFFSET 0)'
            ' OR EXISTS (SELECT 1 FROM awa.done_entries d WHERE d.job_id = r.job_id OFFSET 0) THEN NULL'
            -- No plane holds it and no claim holds this attempt open: it
            -- left every plane (a DLQ job purged), not running.
            ' WHEN NOT EXISTS (SELECT 1 FROM awa.claim_batches b'
            ' CROSS JOIN LATERAL unnest(b.lane_ids, b.lane_seqs) WITH ORDINALITY AS i (lane_id, lane_seq, k)'
            ' WHERE b.ready_slot = r.ready_slot AND b.job_ids @> ARRAY[r.job_id]'
            ' AND i.lane_id = r.lane_id AND i.lane_seq = r.lane_seq'
            ' AND NOT EXISTS (SELECT 1 FROM awa.claim_closures c WHERE c.claim_slot = b.claim_slot'
            ' AND c.receipts @> awa._receipt_id(b.batch_id, i.k)) OFFSET 0) THEN NULL'
            ' WHEN EXISTS (SELECT 1 FROM awa.callbacks x WHERE x.job_id = r.job_id'
            ' AND x.run_lease = r.run_lease + 1 AND x.resumed_at IS NULL OFFSET 0)'
            ' THEN %2$L::text::awa.job_state ELSE %1$L::awa.job_state END',
            'running', 'waiting_external', 'available', 'completed',
            CASE WHEN p_id IS NULL
                 THEN format('(r.job_id, r.run_lease + 1) IN (SELECT i.job_id, i.run_lease FROM awa.done_completions cb'
                             ' CROSS JOIN LATERAL unnest(cb.job_ids, cb.run_leases) AS i (job_id, run_lease)'
                             ' WHERE true%s%s)',
                             CASE WHEN p_from IS NOT NULL
                                  THEN format(' AND cb.completed_at >= %L::timestamptz', p_from) ELSE '' END,
                             CASE WHEN p_to IS NOT NULL
                                  THEN format(' AND cb.completed_at < %L::timestamptz', p_to) ELSE '' END)
                 ELSE 'EXISTS (SELECT 1 FROM awa.done_completions cb WHERE cb.ready_slot = r.ready_slot'
                      ' AND cb.job_ids @> ARRAY[r.job_id] AND EXISTS (SELECT 1 FROM unnest(cb.job_ids, cb.run_leases)'
                      ' AS i (job_id, run_lease) WHERE i.job_id = r.job_id AND i.run_lease = r.run_lease + 1))'
            END);
        -- The states asked for, then the filters (a range is in the
        -- completions' hash: a finished ring job is a completed one).
        v_where := CASE WHEN NOT 'available' = ANY (v_ring) THEN ' AND NOT h.above'
                        WHEN cardinality(v_ring) = 1 THEN ' AND h.above' ELSE '' END
                   || CASE WHEN cardinality(v_ring) < 4 THEN format(' AND s.state::text = ANY (%L::text[])', v_ring)
                           ELSE '' END
                   || CASE WHEN p_to IS NOT NULL THEN format(' AND r.created_at < %L::timestamptz', p_to) ELSE '' END
                   || awa._list_jobs_where('r', NULL, p_id, p_queue, p_kind, p_tag, NULL, NULL, p_after);
        v_parts := v_parts || format(
            'SELECT %s FROM awa.ready_entries r'
            ' CROSS JOIN LATERAL (SELECT r.lane_seq > c.claim_seq AS above FROM awa.claim_cursors c'
            ' WHERE c.lane_id = r.lane_id) AS h'
            ' CROSS JOIN LATERAL (SELECT %s AS state OFFSET 0) AS s'
            ' WHERE s.state IS NOT NULL%s',
            format(v_cols, 'running', 'waiting_external', 'completed', 'r'), v_state, v_where);
        -- The batch plane (awa.ready_batches), classified item by item as
        -- ready rows are. Rows hold disjoint blocks of ids, so a walk of rows
        -- by first_id descending, each row's items newest first, is in job
        -- order: each row reached (first_id below the cursor, its scalars not
        -- excluding the filter) is expanded once (awa._batch_items) over the
        -- items its id and lane-cursor bounds allow (an id: its item alone;
        -- available only: those above its lane's cursor; claimed only: those
        -- at or below), sorted newest first (at most 1,024), classified and
        -- filtered until a page is found; the walk stops at a page of items,
        -- which the branch sorts (at most limit rows). For an id, the row is
        -- one whose first_id is within 1,024 below it (an id block is at most
        -- 1,024 ids), by the id index.
        v_parts := v_parts || format(
            'SELECT %1$s FROM (SELECT x.* FROM awa.ready_batches rb'
            ' CROSS JOIN LATERAL (SELECT c.claim_seq FROM awa.claim_cursors c WHERE c.lane_id = rb.lane_id) AS cur'
            ' CROSS JOIN LATERAL (SELECT %2$s AS lo, %3$s AS hi) AS g'
            ' CROSS JOIN LATERAL (SELECT r.*, h.above, s.state'
            ' FROM (SELECT i.ready_slot, i.lane_id, i.lane_seq, i.job_id, i.run_lease, i.attempt, i.max_attempts,'
            ' i.priority, i.queue, i.kind, i.args, i.tags, i.metadata, i.errors, i.created_at, i.run_at'
            ' FROM awa._batch_items(rb, rb.first_seq + g.lo - 2, (g.hi - g.lo + 1)::int) AS i%4$s'
            ' OFFSET 0) AS r'
            ' CROSS JOIN LATERAL (SELECT r.lane_seq > cur.claim_seq AS above) AS h'
            ' CROSS JOIN LATERAL (SELECT %5$s AS state OFFSET 0) AS s'
            ' WHERE s.state IS NOT NULL%6$s%7$s) AS x'
            ' WHERE g.lo <= g.hi%8$s%9$s) AS batch_page'
            ' CROSS JOIN LATERAL (SELECT batch_page.above) AS h CROSS JOIN LATERAL (SELECT batch_page.state) AS s',
            format(v_cols, 'running', 'waiting_external', 'completed', 'batch_page'),
            -- The first and last items (k) the bounds allow.
            concat_ws(', ', 'greatest(1', CASE WHEN cardinality(v_ring) = 1 AND 'available' = ANY (v_ring)
                                               THEN 'cur.claim_seq - rb.first_seq + 2' END,
                      CASE WHEN p_id IS NOT NULL THEN format('%s - rb.first_id + 1', p_id) END) || ')',
            concat_ws(', ', 'least(rb.n', CASE WHEN NOT 'available' = ANY (v_ring)
                                               THEN 'cur.claim_seq - rb.first_seq + 1' END,
                      CASE WHEN p_id IS NOT NULL THEN format('%s - rb.first_id + 1', p_id) END,
                      CASE WHEN p_after IS NOT NULL THEN format('%s - rb.first_id', p_after) END) || ')',
            CASE WHEN p_id IS NULL THEN ' ORDER BY i.lane_seq DESC' ELSE '' END,
            v_state, v_where,
            CASE WHEN p_id IS NULL THEN format(' LIMIT %s', p_limit) ELSE '' END,
            -- What a row's scalars decide for all its items.
            concat(CASE WHEN p_id IS NOT NULL
                        THEN format(' AND rb.first_id <= %1$s AND rb.first_id > %1$s - 1024', p_id) END,
                   CASE WHEN p_after IS NOT NULL THEN format(' AND rb.first_id < %s', p_after) END,
                   CASE WHEN p_queue IS NOT NULL THEN format(' AND rb.queue = %L', p_queue) END,
                   CASE WHEN p_kind IS NOT NULL THEN format(' AND (rb.kind IS NULL OR rb.kind = %L)', p_kind) END,
                   CASE WHEN p_tag IS NOT NULL THEN ' AND rb.item_tags IS NOT NULL' END,
                   CASE WHEN p_to IS NOT NULL THEN format(' AND rb.created_at < %L::timestamptz', p_to) END),
            CASE WHEN p_id IS NULL THEN format(' ORDER BY rb.first_id DESC LIMIT %s', p_limit) ELSE '' END);
    END IF;
    -- The archive: its top-k merge over chunks (awa._archive_page), or for an
    -- id its lookup by the chunks' id bounds (awa._archived_job).
    v_terminal := ARRAY(SELECT s FROM unnest(v_states) AS s WHERE s IN ('completed', 'failed', 'cancelled'));
    IF cardinality(v_terminal) > 0 THEN
        v_parts := v_parts || format(
            'SELECT a.job_id, a.queue, a.priority, a.kind, a.state, a.args, a.attempt, a.max_attempts,'
            ' a.run_lease, a.run_at, a.created_at, NULL::timestamptz, a.finalized_at, a.tags, a.metadata,'
            ' a.errors, false, a.expires_at FROM %s AS a',
            CASE WHEN p_id IS NOT NULL THEN format('awa._archived_job(%s)', p_id)
                 ELSE format('awa._archive_page(%L::awa.job_state[], %L, %L, %L, %L::timestamptz, %L::timestamptz,'
                             ' %s, %s)', v_terminal, p_queue, p_kind, p_tag, p_from, p_to,
                             coalesce(p_after::text, 'NULL'), p_limit) END);
    END IF;

    IF cardinality(v_parts) = 0 THEN
        RETURN 'SELECT * FROM awa.job_listing';
    END IF;
    -- Each branch in job order, at most a page; the page; then progress (one
    -- probe per row, outside the merge).
    RETURN format(
        'SELECT u.id, u.queue, u.priority, u.kind, u.state, u.args, u.attempt, u.max_attempts, u.run_lease, u.run_at,'
        ' u.created_at, u.claimed_at, u.finalized_at, u.tags, u.metadata, u.errors, u.dlq, p.progress,'
        ' p.updated_at, u.expires_at'
        ' FROM (SELECT * FROM (%s) AS x (id, queue, priority, kind, state, args, attempt, max_attempts, run_lease,'
        ' run_at, created_at, claimed_at, finalized_at, tags, metadata, errors, dlq, expires_at)%s) AS u'
        ' LEFT JOIN LATERAL (SELECT p.progress, p.updated_at FROM awa.attempt_state p WHERE p.job_id = u.id'
        ' OFFSET 0) AS p ON true%s',
        (SELECT string_agg(CASE WHEN p_id IS NULL THEN format('(%s ORDER BY 1 DESC LIMIT %s)', b, p_limit)
                                ELSE b END, ' UNION ALL ')
         FROM unnest(v_parts) AS b),
        CASE WHEN p_id IS NULL THEN format(' ORDER BY x.id DESC LIMIT %s', p_limit) ELSE '' END,
        CASE WHEN p_id IS NULL THEN ' ORDER BY u.id DESC' ELSE '' END);
END;
$$;
