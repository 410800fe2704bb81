-- awa._unique_holder(job_id): the job holding a uniqueness key as awa.jobs
-- shows it now (its newest attempt: id, state, queue, priority, kind,
-- run_at), or NULL when it has left history (pruned without archive, dropped
-- by the archive's retention, erased).
-- Locks: as awa.job: ACCESS SHARE on the rings in prune's order, in a
-- subtransaction rolled back before it returns (awa._end_ring_read), so a
-- producer never keeps a prune waiting until it commits. At READ COMMITTED
-- the read is a statement of its own after those locks: it sees what a prune,
-- finalizer, rescue or retry that committed before it wrote, all of a job's
-- move between planes or none of it.
-- Isolation: outside READ COMMITTED, 40001 when a ring slot it read was pruned
-- after the snapshot (as awa.job).
-- Called by awa._take_unique_key and awa._retake_unique_key, with the key's row
-- locked.
CREATE FUNCTION awa._unique_holder(p_job_id bigint)
RETURNS awa.inserted_job
LANGUAGE plpgsql
AS $$
DECLARE
    v_job awa.inserted_job;
BEGIN
    BEGIN
        PERFORM awa._lock_ring_reads(ARRAY['cursor', 'queue', 'claim']);
        -- The live planes by the id, and the archive's lookup by id (its view
        -- would expand every chunk: the id cannot reach the arrays).
        SELECT j.id, j.state, j.queue, j.priority, j.kind, j.run_at INTO v_job
        FROM (SELECT l.id, l.state, l.queue, l.priority, l.kind, l.run_at, l.run_lease
              FROM awa._live_jobs_now l WHERE l.id = p_job_id
              UNION ALL
              SELECT a.job_id, a.state, a.queue, a.priority, a.kind, a.run_at, a.run_lease
              FROM awa._archived_job(p_job_id) AS a) AS j
        ORDER BY j.run_lease DESC LIMIT 1;
        PERFORM awa._end_ring_read('awa._unique_holder', ARRAY['queue', 'claim', 'cursor']);
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        NULL;
    END;
    RETURN v_job;
END;
$$;
