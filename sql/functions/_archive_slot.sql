-- awa._archive_slot(slot, batch_ids, entry_ids, now): copies the terminal jobs
-- of queue slot `slot` into the archive, except the completion batches and
-- snapshots named (already copied by this prune), in one INSERT ... SELECT:
-- completions hydrated from the slot's ready rows and batch rows (the
-- completed jobs grouped by batch row, each row expanded once,
-- awa._batch_items, over the span of its completed positions), failed and cancelled
-- snapshots as they are. Each job gets an expiry finalized_at + its retention
-- (awa.archive_retention: the queue's row, else '*'); a retention of 0, or one
-- that ends within a minute of now, is not archived. The jobs are grouped by
-- (state, queue, kind, cohort hour of their expiry), sorted by id and cut into
-- chunks (awa.archived_chunks): a new chunk at each multiple of
-- awa._archive_span() ids and after 1,000 jobs; a chunk's expires_at is its
-- jobs' latest expiry. The tags of tagged jobs go to awa.archived_tags, one
-- row per chunk and tag. Returns what it has copied in all (the lists given
-- plus this call's) and how many jobs this call archived. One statement: what
-- it lists is what it copied (docs/storage.md, "History archive").
-- Locks: ACCESS SHARE on the slot's done and ready children (done_completions,
-- done_entries, ready_entries, ready_batches), ROW EXCLUSIVE on
-- the archive partitions written (awa.archived_chunks' before
-- awa.archived_tags'). Called by awa.prune_ring (before its locks, then
-- under them for what is new).
CREATE FUNCTION awa._archive_slot(p_slot int, p_batch_ids bigint[], p_entry_ids bigint[], p_now timestamptz)
RETURNS awa._archived
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    v_out     awa._archived;
    v_batches boolean;
BEGIN
    -- The batch plane's branch only where the slot holds a batch row: its
    -- planning costs more than the rest's, on every call. (A lock on
    -- ready_batches before the others: only prune calls this, and ACCESS
    -- SHARE conflicts with nothing but prune's own locks.)
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM awa.%I)', 'ready_batches_' || p_slot) INTO v_batches;
    EXECUTE format($q$
        WITH cb AS MATERIALIZED (
            SELECT c.* FROM awa.%1$I c WHERE c.batch_id NOT IN (SELECT unnest($1))
        ),
        de AS MATERIALIZED (
            SELECT d.* FROM awa.%2$I d WHERE d.job_id NOT IN (SELECT unnest($2))
        ),
        ci AS (
            SELECT cb.completed_at, i.run_lease, i.lane_id, i.lane_seq
            FROM cb
            CROSS JOIN LATERAL unnest(cb.run_leases, cb.lane_ids, cb.lane_seqs) AS i (run_lease, lane_id, lane_seq)
        ),
%4$s        src AS (
            SELECT r.job_id, 'completed'::awa.job_state AS state, ci.run_lease, r.attempt + 1 AS attempt,
                   r.max_attempts, r.priority, r.queue, r.kind, r.args, r.tags, r.metadata, r.errors,
                   r.created_at, r.run_at, ci.completed_at AS finalized_at
            FROM ci
            JOIN awa.%3$I r ON r.lane_id = ci.lane_id AND r.lane_seq = ci.lane_seq
%5$s
            UNION ALL
            SELECT de.job_id, de.state, de.run_lease, de.attempt, de.max_attempts, de.priority, de.queue, de.kind,
                   de.args, de.tags, de.metadata, de.errors, de.created_at, de.run_at, de.finalized_at
            FROM de
        ),
        kept AS (
            SELECT s.*, s.finalized_at + coalesce(q.retention, d.retention) AS expires_at,
                   -- Aligned blocks of ids: a chunk's span stays below the constant.
                   s.job_id / awa._archive_span() AS block
            FROM src s
            LEFT JOIN awa.archive_retention q ON q.queue = s.queue AND q.state = s.state
            LEFT JOIN awa.archive_retention d ON d.queue = '*' AND d.state = s.state
            WHERE coalesce(q.retention, d.retention, interval '0') > interval '0'
              AND s.finalized_at + coalesce(q.retention, d.retention, interval '0') > $3 + interval '1 minute'
        ),
        cut AS (
            SELECT k.*, date_trunc('hour', k.expires_at, 'UTC') AS cohort,
                   (row_number() OVER (PARTITION BY k.state, k.queue, k.kind, date_trunc('hour', k.expires_at, 'UTC'),
                                                    k.block ORDER BY k.job_id) - 1) / 1000 AS part
            FROM kept k
        ),
        ins AS (
            INSERT INTO awa.archived_chunks (expires_at, state, queue, kind, chunk_id, min_job_id, max_job_id, n,
                                             job_ids, run_leases, attempts, max_attempts, priorities, args, tags,
                                             metadata, errors, created_ats, run_ats, finalized_ats)
            SELECT max(c.expires_at), c.state, c.queue, c.kind, nextval('awa.archive_chunk_id_seq'), min(c.job_id),
                   max(c.job_id), count(*), array_agg(c.job_id ORDER BY c.job_id),
                   array_agg(c.run_lease ORDER BY c.job_id), array_agg(c.attempt ORDER BY c.job_id),
                   array_agg(c.max_attempts ORDER BY c.job_id), array_agg(c.priority ORDER BY c.job_id),
                   array_agg(c.args ORDER BY c.job_id),
                   CASE WHEN bool_or(cardinality(c.tags) > 0)
                        THEN array_agg(c.tags::text ORDER BY c.job_id) END,
                   array_agg(c.metadata ORDER BY c.job_id), array_agg(c.errors ORDER BY c.job_id),
                   array_agg(c.created_at ORDER BY c.job_id), array_agg(c.run_at ORDER BY c.job_id),
                   array_agg(c.finalized_at ORDER BY c.job_id)
            FROM cut c
            GROUP BY c.state, c.queue, c.kind, c.cohort, c.block, c.part
            RETURNING expires_at, state, chunk_id, job_ids, tags, n
        ),
        tagged AS (
            INSERT INTO awa.archived_tags (expires_at, tag, state, chunk_id, min_job_id, max_job_id, job_ids)
            SELECT i.expires_at, g.tag, i.state, i.chunk_id, min(u.job_id), max(u.job_id),
                   array_agg(DISTINCT u.job_id)
            FROM ins i
            CROSS JOIN LATERAL unnest(i.job_ids, i.tags) AS u (job_id, tags)
            CROSS JOIN LATERAL unnest(u.tags::text[]) AS g (tag)
            WHERE i.tags IS NOT NULL
            GROUP BY i.expires_at, i.state, i.chunk_id, g.tag
        )
        SELECT $1 || ARRAY(SELECT cb.batch_id FROM cb), $2 || ARRAY(SELECT de.job_id FROM de),
               (SELECT coalesce(sum(ins.n), 0) FROM ins)$q$,
        'done_completions_' || p_slot, 'done_entries_' || p_slot, 'ready_entries_' || p_slot,
        CASE WHEN v_batches THEN format($b$
        -- The completed jobs of batch rows: each row expanded once over the
        -- span of its completed positions.
        bi AS MATERIALIZED (
            SELECT e.*
            FROM (SELECT ci.lane_id, ci.lane_seq & ~1023::bigint AS first_seq, min(ci.lane_seq) AS lo,
                         max(ci.lane_seq) AS hi
                  FROM ci GROUP BY ci.lane_id, ci.lane_seq & ~1023::bigint) AS g
            JOIN awa.%I b ON b.lane_id = g.lane_id AND b.first_seq = g.first_seq
            CROSS JOIN LATERAL awa._batch_items(b::awa.ready_batches, g.lo - 1, (g.hi - g.lo + 1)::int) AS e
        ),$b$, 'ready_batches_' || p_slot) ELSE '' END,
        CASE WHEN v_batches THEN $b$
            UNION ALL
            SELECT e.job_id, 'completed'::awa.job_state, ci.run_lease, e.attempt + 1, e.max_attempts, e.priority,
                   e.queue, e.kind, e.args, e.tags, e.metadata, e.errors, e.created_at, e.run_at, ci.completed_at
            FROM bi e
            JOIN ci ON ci.lane_id = e.lane_id AND ci.lane_seq = e.lane_seq$b$ ELSE '' END)
    INTO v_out
    USING p_batch_ids, p_entry_ids, p_now;
    RETURN v_out;
END;
$$;
