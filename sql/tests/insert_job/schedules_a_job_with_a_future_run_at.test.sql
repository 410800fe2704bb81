-- A future run_at makes the job scheduled: it waits in the deferred backlog,
-- has no ready row and is not claimable until promoted.
begin;
select plan(7);

create temp table inserted as
select * from awa.insert_job('noop', '{"n": 1}',
  jsonb_build_object('queue', 'q_later', 'run_at', now() + interval '1 hour', 'priority', 3));

select is((select state from inserted), 'scheduled'::awa.job_state, 'insert_job returns state scheduled');
select is((select run_at from inserted), now() + interval '1 hour', 'insert_job returns the future run_at');
select results_eq(
  $$select d.state, d.run_at, d.attempt, d.run_lease, d.priority, d.queue, d.args
    from awa.deferred_jobs d join inserted i on i.id = d.job_id$$,
  $$values ('scheduled'::awa.job_state, now() + interval '1 hour', 0, 0::bigint, 3::smallint, 'q_later', '{"n": 1}'::jsonb)$$,
  'the deferred backlog holds the job as scheduled at its run_at');
select is((select state from awa.jobs where id = (select id from inserted)), 'scheduled'::awa.job_state,
  'awa.jobs shows the job scheduled');
select is((select count(*) from awa.ready_entries r join inserted i on i.id = r.job_id), 0::bigint,
  'the job has no ready row');
select is_empty(
  $$select * from awa.claim_ready_runtime('q_later', 10, null, '2030-01-01 12:00:00+00')$$,
  'claim_ready_runtime does not claim a scheduled job');
select is((select scheduled from awa.queue_counts('q_later')), 1::bigint, 'queue_counts counts it scheduled');

select * from finish();
rollback;
