-- awa._apply_privileges(): the privileges of schema awa, in one place
-- (docs/privileges.md). PUBLIC gets nothing: no USAGE on the schema, no
-- EXECUTE on any routine, no table or sequence right. Three NOLOGIN group
-- roles (awa._ensure_role; skipped with a WARNING when missing and not
-- creatable) get USAGE on the schema and EXECUTE on their entry points only:
--   awa_producer  enqueue: insert_job, insert_jobs, the COPY stage, and their
--                 unique forms (insert_unique_job, insert_unique_jobs,
--                 insert_staged_unique_jobs)
--   awa_worker    claim, finalize, heartbeat, queue_pending, queue_readiness, queues_ready, listen,
--                 progress (set_progress, job_progress), set_attempt_deadline,
--                 closed_attempts,
--                 callbacks (register, park, take, the four resolutions)
--   (all three: substrate_version, which every Go client checks at start)
--   awa_admin     maintenance, configuration, rescue, prune, DLQ, cancel,
--                 callback resolutions, periodic jobs (declare, pause, fire),
--                 counts, queue_depths, storage_status, awa.job, job_progress, and SELECT on the read views awa.jobs and
--                 awa.terminal_jobs (plus awa._read_jobs and
--                 awa._read_terminal_jobs, which they call: PostgreSQL checks
--                 a view's function calls against the reader)
-- Everything else, internals included, is the owner's. Entry points that
-- touch tables are SECURITY DEFINER with a pinned search_path, so no role
-- holds a table right. Each role's previous grants in schema awa are revoked
-- first, so a routine moved between roles leaves no stale grant.
-- Locks: none of its own (GRANT/REVOKE lock the catalog rows they change).
-- Idempotent. Called by awa.install_queue_storage_substrate (every install
-- and upgrade); run that again after creating missing roles.
CREATE FUNCTION awa._apply_privileges()
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_role      text;
    v_routines  text[];
    v_relations text[];
BEGIN
    REVOKE ALL ON SCHEMA awa FROM PUBLIC;
    REVOKE ALL ON ALL ROUTINES IN SCHEMA awa FROM PUBLIC;
    REVOKE ALL ON ALL TABLES IN SCHEMA awa FROM PUBLIC;
    REVOKE ALL ON ALL SEQUENCES IN SCHEMA awa FROM PUBLIC;

    FOR v_role, v_routines, v_relations IN
        SELECT * FROM (VALUES
            ('awa_producer',
             ARRAY['insert_job', 'insert_jobs', 'open_job_stage', 'insert_staged_jobs', 'insert_unique_job',
                   'insert_unique_jobs', 'insert_staged_unique_jobs', 'substrate_version'],
             ARRAY[]::text[]),
            ('awa_worker',
             ARRAY['claim_ready_runtime', 'complete_jobs', 'retry_jobs', 'snooze_jobs', 'fail_jobs', 'cancel_jobs',
                   'heartbeat_instance', 'queue_pending', 'queue_readiness', 'queues_ready', 'listen_queues', 'set_progress', 'job_progress',
                   'set_attempt_deadline', 'closed_attempts', 'register_callback', 'park_jobs', 'take_callback_result',
                   'complete_external', 'fail_external', 'retry_external', 'resume_external', 'substrate_version'],
             ARRAY[]::text[]),
            ('awa_admin',
             ARRAY['run_maintenance', 'acquire_leader_lease', 'release_leader_lease', 'promote_due_jobs', 'next_promotion',
                   'rescue_stale_claims', 'rescue_expired_deadlines', 'rescue_expired_callbacks', 'rotate_ring',
                   'prune_ring', 'complete_external', 'fail_external', 'retry_external', 'resume_external',
                   'cleanup_runtime_instances', 'cleanup_attempt_state', 'cleanup_unique_keys', 'retire_idle_key_lanes', 'configure_queue', 'cancel_job', 'erase_job', 'retry_job', 'bulk_cancel_jobs', 'bulk_retry_jobs', 'pause_queue', 'resume_queue', 'paused_queues', 'queue_limits', 'queue_drained', 'retry_dlq_job',
                   'purge_dlq', 'queue_counts', 'queue_depths', 'storage_status', 'configure_archive', 'maintain_archive', 'archived_cohort_jobs', 'job',
                   'get_job', 'list_jobs', 'list_dlq_jobs', 'job_progress', 'substrate_version', '_read_jobs', '_read_terminal_jobs',
                   'upsert_periodic_job', 'delete_periodic_job', 'pause_periodic_job',
                   'resume_periodic_job', 'list_periodic_jobs', 'periodic_jobs_due', 'fire_periodic_job',
                   'reject_periodic_schedule'],
             ARRAY['jobs', 'terminal_jobs'])
        ) AS g (role, routines, relations)
    LOOP
        CONTINUE WHEN NOT awa._ensure_role(v_role);
        EXECUTE format('REVOKE ALL ON ALL ROUTINES IN SCHEMA awa FROM %1$I;
                        REVOKE ALL ON ALL TABLES IN SCHEMA awa FROM %1$I;
                        REVOKE ALL ON ALL SEQUENCES IN SCHEMA awa FROM %1$I;
                        GRANT USAGE ON SCHEMA awa TO %1$I', v_role);
        EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO %I',
                       (SELECT string_agg('awa.' || quote_ident(r), ', ') FROM unnest(v_routines) AS r), v_role);
        IF cardinality(v_relations) > 0 THEN
            EXECUTE format('GRANT SELECT ON TABLE %s TO %I',
                           (SELECT string_agg('awa.' || quote_ident(r), ', ') FROM unnest(v_relations) AS r), v_role);
        END IF;
    END LOOP;
END;
$$;
