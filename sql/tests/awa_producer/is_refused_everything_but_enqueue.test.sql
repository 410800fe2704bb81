-- A member of awa_producer may execute the enqueue entry points (and their
-- unique forms) and
-- nothing else of schema awa, and holds no table or sequence right: it cannot
-- claim, finalize, heartbeat, maintain, configure, list, read or write a
-- table, truncate a slot, draw an id, or call an internal; each such call is
-- refused with 42501.
begin;
select plan(23);

select results_eq($$select * from awa_test.executable_by('awa_test_producer')$$,
                  $$values ('insert_job'::text), ('insert_jobs'), ('insert_staged_jobs'), ('insert_staged_unique_jobs'),
                           ('insert_unique_job'), ('insert_unique_jobs'), ('open_job_stage'), ('substrate_version')$$,
                  'awa_producer executes the enqueue entry points only');
select is_empty($$select * from awa_test.relation_rights_of('awa_test_producer')$$,
                'awa_producer holds no right on any table, view or sequence');

select * from awa_test.refused('awa_test_producer', array[
  $$select * from awa.claim_ready_runtime('refused_q', 1)$$,
  $$select * from awa.complete_jobs(array[1::bigint], array[1::bigint], array[0], array[0::bigint])$$,
  $$select * from awa.fail_jobs(array[1::bigint], array[1::bigint], array[0], array[0::bigint], array['e'])$$,
  $$select * from awa.heartbeat_instance(gen_random_uuid())$$,
  $$select * from awa.queue_pending('refused_q')$$,
  $$select * from awa.prune_ring('queue')$$,
  $$select * from awa.rotate_ring('queue')$$,
  $$call awa.run_maintenance()$$,
  $$select * from awa.configure_queue('refused_q', '{"dlq": true}')$$,
  $$select * from awa.upsert_periodic_job('p', '@hourly', 'k')$$,
  $$select * from awa.fire_periodic_job('p', 1, null, null, now())$$,
  $$select * from awa.cancel_job(1)$$,
  $$select * from awa.queue_counts()$$,
  $$select count(*) from awa.jobs$$,
  $$select count(*) from awa.ready_entries$$,
  $$insert into awa.queue_meta (queue) values ('refused_q')$$,
  $$truncate awa.ready_entries_0$$,
  $$select nextval('awa.job_id_seq')$$,
  $$select awa._queue_name_ok('refused_q')$$,
  $$select * from awa.install_queue_storage_substrate()$$,
  $$select awa._apply_privileges()$$]);

select * from finish();
rollback;
