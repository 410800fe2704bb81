-- A member of awa_worker may execute the claim, finalize, heartbeat,
-- queue_pending, queue_readiness, queues_ready, listen, progress, attempt deadline, closed_attempts and callback entry points
-- (register, park, take, the four resolutions) and nothing else of schema awa, and
-- holds no table or sequence right: it cannot enqueue, configure a queue,
-- prune, rotate, maintain, rescue (callback timeouts too), cancel by id, touch
-- the DLQ, list, read or write a table, or call an internal; each such call is
-- refused with 42501.
begin;
select plan(27);

select results_eq($$select * from awa_test.executable_by('awa_test_worker')$$,
                  $$values ('cancel_jobs'::text), ('claim_ready_runtime'), ('closed_attempts'), ('complete_external'),
                           ('complete_jobs'), ('fail_external'), ('fail_jobs'), ('heartbeat_instance'), ('job_progress'),
                           ('listen_queues'), ('park_jobs'), ('queue_pending'), ('queue_readiness'), ('queues_ready'), ('register_callback'), ('resume_external'),
                           ('retry_external'), ('retry_jobs'), ('set_attempt_deadline'), ('set_progress'), ('snooze_jobs'),
                           ('substrate_version'),
                           ('take_callback_result')$$,
                  'awa_worker executes the worker entry points only');
select is_empty($$select * from awa_test.relation_rights_of('awa_test_worker')$$,
                'awa_worker holds no right on any table, view or sequence');

select * from awa_test.refused('awa_test_worker', array[
  $$select * from awa.insert_job('k')$$,
  $$select * from awa.insert_jobs(array['k'])$$,
  $$select awa.open_job_stage()$$,
  $$select * from awa.configure_queue('worker_q', '{"dlq": true}')$$,
  $$select * from awa.upsert_periodic_job('p', '@hourly', 'k')$$,
  $$select * from awa.fire_periodic_job('p', 1, null, null, now())$$,
  $$select * from awa.prune_ring('queue')$$,
  $$select * from awa.rotate_ring('queue')$$,
  $$call awa.run_maintenance()$$,
  $$select * from awa.promote_due_jobs()$$,
  $$select * from awa.rescue_stale_claims()$$,
  $$select * from awa.rescue_expired_callbacks()$$,
  $$select count(*) from awa.callbacks$$,
  $$select count(*) from awa.external_waits$$,
  $$select * from awa.acquire_leader_lease('maintenance', gen_random_uuid(), interval '1 minute')$$,
  $$select * from awa.cancel_job(1)$$,
  $$select * from awa.purge_dlq()$$,
  $$select * from awa.queue_counts()$$,
  $$select count(*) from awa.jobs$$,
  $$select count(*) from awa.claim_batches$$,
  $$delete from awa.runtime_instances$$,
  $$truncate awa.claim_closures_0$$,
  $$select awa._lock_key('ring')$$,
  $$select * from awa._finalize('complete', 'completed', array[1::bigint], array[1::bigint], array[0], array[0::bigint], null, null, null)$$,
  $$select * from awa.install_queue_storage_substrate()$$]);

select * from finish();
rollback;
