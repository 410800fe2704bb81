-- awa._append_ready(jobs, now): appends jobs as ready rows in the current queue
-- slot, in array order within each lane, and notifies each queue's channel.
-- Locks: every lane is resolved (created on a queue's first use) before any
-- lane lock is taken; then per lane, in lane_id order, an advisory transaction
-- lock (1096237313, lane_id) held until commit, so a later lane position can
-- never become visible while an earlier one could still commit. Positions come
-- from the lane's sequence, reserved as one range per lane.
-- A transaction that inserts into several lanes in separate calls, in an
-- order that differs from another concurrent transaction's, can deadlock
-- (40P01): insert into several lanes in one call, or in a fixed order.
-- Called by awa.insert_jobs, awa.promote_due_jobs and awa.retry_dlq_job.
CREATE FUNCTION awa._append_ready(p_jobs awa._job_body[], p_now timestamptz)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_slot  int := awa._current_slot('queue');
    v_group record;
    v_lanes awa.queue_lanes[] := '{}';
    v_first bigint;
BEGIN
    FOR v_group IN SELECT DISTINCT j.queue, j.priority FROM unnest(p_jobs) AS j LOOP
        v_lanes := v_lanes || awa._lane(v_group.queue, v_group.priority);
    END LOOP;

    FOR v_group IN
        SELECT l.lane_id, l.lane_seq, l.queue, l.priority,
               (SELECT count(*) FROM unnest(p_jobs) AS j WHERE j.queue = l.queue AND j.priority = l.priority) AS n
        FROM unnest(v_lanes) AS l
        ORDER BY l.lane_id
    LOOP
        PERFORM pg_advisory_xact_lock(1096237313, v_group.lane_id);
        v_first := nextval(v_group.lane_seq);
        IF v_group.n > 1 THEN
            PERFORM setval(v_group.lane_seq, v_first + v_group.n - 1);
        END IF;

        INSERT INTO awa.ready_entries (
            ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
            queue, kind, args, tags, metadata, errors, created_at, run_at)
        SELECT v_slot, v_group.lane_id, v_first + row_number() OVER (ORDER BY j.ord) - 1,
               j.job_id, j.run_lease, j.attempt, j.max_attempts, j.priority,
               j.queue, j.kind, j.args, j.tags, j.metadata, j.errors, j.created_at, j.run_at
        FROM unnest(p_jobs) WITH ORDINALITY AS j (job_id, run_lease, attempt, max_attempts, priority, queue,
                                                 kind, args, tags, metadata, errors, created_at, run_at, ord)
        WHERE j.queue = v_group.queue AND j.priority = v_group.priority;
    END LOOP;

    PERFORM pg_notify('awa:' || q.queue, '')
    FROM (SELECT DISTINCT j.queue FROM unnest(p_jobs) AS j ORDER BY 1) AS q;
END;
$$;
