-- A member of awa_admin may execute the maintenance (callback timeouts and
-- periodic jobs included), configuration, DLQ, cancel, callback resolution, count, storage
-- status, awa.job, awa.get_job, awa.list_jobs, awa.list_dlq_jobs and awa.archived_cohort_jobs entry points (and awa._read_jobs and
-- awa._read_terminal_jobs, which the read views call), may SELECT the read views awa.jobs and awa.terminal_jobs, and
-- nothing else: it cannot enqueue, claim, finalize a claim, register, park or
-- wait for a callback, heartbeat, read or
-- write a storage table, truncate a slot, reinstall, or call another internal;
-- each such call is refused with 42501.
begin;
select plan(24);

select results_eq($$select * from awa_test.executable_by('awa_test_admin')$$,
                  $$values ('_read_jobs'::text), ('_read_terminal_jobs'), ('acquire_leader_lease'), ('archived_cohort_jobs'), ('bulk_cancel_jobs'), ('bulk_retry_jobs'), ('cancel_job'), ('cleanup_attempt_state'),
                           ('cleanup_runtime_instances'), ('cleanup_unique_keys'), ('complete_external'), ('configure_archive'), ('configure_queue'), ('delete_periodic_job'), ('erase_job'), ('fail_external'), ('fire_periodic_job'),
                           ('get_job'), ('job'), ('job_progress'), ('list_dlq_jobs'), ('list_jobs'), ('list_periodic_jobs'), ('maintain_archive'), ('next_promotion'), ('pause_periodic_job'), ('pause_queue'),
                           ('paused_queues'), ('periodic_jobs_due'), ('promote_due_jobs'), ('prune_ring'), ('purge_dlq'), ('queue_counts'), ('queue_depths'), ('queue_drained'), ('queue_limits'), ('reject_periodic_schedule'),
                           ('release_leader_lease'), ('rescue_expired_callbacks'), ('rescue_expired_deadlines'), ('rescue_stale_claims'), ('resume_external'), ('resume_periodic_job'), ('resume_queue'), ('retire_idle_key_lanes'), ('retry_dlq_job'),
                           ('retry_external'), ('retry_job'), ('rotate_ring'), ('run_maintenance'), ('storage_status'), ('substrate_version'), ('upsert_periodic_job')$$,
                  'awa_admin executes the operator entry points only');
select results_eq($$select * from awa_test.relation_rights_of('awa_test_admin')$$,
                  $$values ('jobs:SELECT'::text), ('terminal_jobs:SELECT')$$,
                  'awa_admin may SELECT the read views and holds no other table or sequence right');

select * from awa_test.refused('awa_test_admin', array[
  $$select * from awa.insert_job('k')$$,
  $$select * from awa.insert_jobs(array['k'])$$,
  $$select * from awa.insert_staged_jobs()$$,
  $$select * from awa.claim_ready_runtime('admin_q', 1)$$,
  $$select * from awa.complete_jobs(array[1::bigint], array[1::bigint], array[0], array[0::bigint])$$,
  $$select * from awa.heartbeat_instance(gen_random_uuid())$$,
  $$select * from awa.register_callback(1, 1, 0, 0, interval '1 hour')$$,
  $$select * from awa.park_jobs(array[1::bigint], array[1::bigint], array[0], array[0::bigint])$$,
  $$select * from awa.take_callback_result(1, 1, 0, 0, gen_random_uuid())$$,
  $$select count(*) from awa.callbacks$$,
  $$select awa.listen_queues(array['admin_q'])$$,
  $$select count(*) from awa.ready_entries$$,
  $$select count(*) from awa.periodic_jobs$$,
  $$update awa.queue_meta set dlq_enabled = true$$,
  $$truncate awa.ready_entries_0$$,
  $$select awa._lock_key('ring')$$,
  $$select awa._receipt_id(1, 1)$$,
  $$select count(*) from awa._jobs_now$$,
  $$select * from awa.install_queue_storage_substrate()$$,
  $$select awa._apply_privileges()$$,
  $$select awa._ensure_role('awa_admin')$$,
  $$select nextval('awa.lane_positions_0')$$]);

select * from finish();
rollback;
