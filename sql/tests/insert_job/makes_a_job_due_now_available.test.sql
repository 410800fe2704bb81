-- A job without run_at is available at once: a ready row, no backlog row, and
-- the next claim of its queue gets it.
begin;
select plan(5);

create temp table inserted as select * from awa.insert_job('noop', '{}', '{"queue": "q_now"}');

select results_eq(
  $$select j.state, j.dlq from awa.jobs j join inserted i on i.id = j.id$$,
  $$values ('available'::awa.job_state, false)$$,
  'awa.jobs shows the job available (and not in the DLQ)');
select is((select count(*) from awa.ready_entries r join inserted i on i.id = r.job_id), 1::bigint,
  'the job has one ready row');
select is((select count(*) from awa.deferred_jobs d join inserted i on i.id = d.job_id), 0::bigint,
  'the job has no deferred backlog row');
select is((select available from awa.queue_counts('q_now')), 1::bigint, 'queue_counts counts it available');
select results_eq(
  $$select id from awa.claim_ready_runtime('q_now', 10, null, '2030-01-01 12:00:00+00')$$,
  $$select id from inserted$$,
  'claim_ready_runtime claims it');

select * from finish();
rollback;
