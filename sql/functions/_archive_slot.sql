-- awa._archive_slot(slot, batch_ids, entry_ids, now): copies the terminal jobs
-- of queue slot `slot` into awa.archived_jobs, except the completion batches
-- and snapshots named (already copied by this prune), in one INSERT ... SELECT:
-- completions hydrated from the slot's ready rows, failed and cancelled
-- snapshots as they are, and a tagged job's distinct tags into
-- awa.archived_job_tags. Each job gets expires_at = finalized_at + its
-- retention (awa.archive_retention: the queue's row, else '*'); a retention of
-- 0, or one that ends within a minute of now, is not archived. Returns what it
-- has copied in all (the lists given plus this call's) and how many jobs this
-- call archived. One statement: what it lists is what it copied.
-- Locks: ACCESS SHARE on the slot's done and ready children, ROW EXCLUSIVE on
-- the archive partitions written (awa.archived_jobs' before
-- awa.archived_job_tags'). Called by awa.prune_ring (before its locks, then
-- under them for what is new).
CREATE FUNCTION awa._archive_slot(p_slot int, p_batch_ids bigint[], p_entry_ids bigint[], p_now timestamptz)
RETURNS awa._archived
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    v_out awa._archived;
BEGIN
    EXECUTE format($q$
        WITH cb AS MATERIALIZED (
            SELECT c.* FROM awa.%1$I c WHERE c.batch_id NOT IN (SELECT unnest($1))
        ),
        de AS MATERIALIZED (
            SELECT d.* FROM awa.%2$I d WHERE d.job_id NOT IN (SELECT unnest($2))
        ),
        src AS (
            SELECT r.job_id, 'completed'::awa.job_state AS state, i.run_lease, r.attempt + 1 AS attempt,
                   r.max_attempts, r.priority, r.queue, r.kind, r.args, r.tags, r.metadata, r.errors,
                   r.created_at, r.run_at, cb.completed_at AS finalized_at
            FROM cb
            CROSS JOIN LATERAL unnest(cb.run_leases, cb.lane_ids, cb.lane_seqs) AS i (run_lease, lane_id, lane_seq)
            JOIN awa.%3$I r ON r.lane_id = i.lane_id AND r.lane_seq = i.lane_seq
            UNION ALL
            SELECT de.job_id, de.state, de.run_lease, de.attempt, de.max_attempts, de.priority, de.queue, de.kind,
                   de.args, de.tags, de.metadata, de.errors, de.created_at, de.run_at, de.finalized_at
            FROM de
        ),
        ins AS (
            INSERT INTO awa.archived_jobs (expires_at, job_id, state, run_lease, attempt, max_attempts, priority,
                                           queue, kind, args, tags, metadata, errors, created_at, run_at, finalized_at)
            SELECT s.finalized_at + coalesce(q.retention, d.retention, interval '0'), s.job_id, s.state, s.run_lease,
                   s.attempt, s.max_attempts, s.priority, s.queue, s.kind, s.args, s.tags, s.metadata, s.errors,
                   s.created_at, s.run_at, s.finalized_at
            FROM src s
            LEFT JOIN awa.archive_retention q ON q.queue = s.queue AND q.state = s.state
            LEFT JOIN awa.archive_retention d ON d.queue = '*' AND d.state = s.state
            WHERE coalesce(q.retention, d.retention, interval '0') > interval '0'
              AND s.finalized_at + coalesce(q.retention, d.retention, interval '0') > $3 + interval '1 minute'
            RETURNING expires_at, state, job_id, tags
        ),
        tagged AS (
            INSERT INTO awa.archived_job_tags (expires_at, tag, state, job_id)
            SELECT i.expires_at, t.tag, i.state, i.job_id
            FROM ins i CROSS JOIN LATERAL (SELECT DISTINCT u.tag FROM unnest(i.tags) AS u (tag)) AS t
        )
        SELECT $1 || ARRAY(SELECT cb.batch_id FROM cb), $2 || ARRAY(SELECT de.job_id FROM de),
               (SELECT count(*) FROM ins)$q$,
        'done_completions_' || p_slot, 'done_entries_' || p_slot, 'ready_entries_' || p_slot)
    INTO v_out
    USING p_batch_ids, p_entry_ids, p_now;
    RETURN v_out;
END;
$$;
