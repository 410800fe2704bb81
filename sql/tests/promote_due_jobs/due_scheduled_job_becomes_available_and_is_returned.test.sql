-- A scheduled job whose run_at has come is moved from the deferred backlog
-- into a ready row, returned by promote_due_jobs and claimable.
begin;
select plan(6);

create temp table j as
select * from awa.insert_job('promote.k', '{"n": 1}',
                             jsonb_build_object('queue', 'pq', 'run_at', now() + interval '30 seconds'));

select is((select state from awa.jobs where id = (select id from j)), 'scheduled'::awa.job_state,
          'the job starts scheduled');

create temp table p as select * from awa.promote_due_jobs(100, now() + interval '31 seconds');

select results_eq(
  $$select id, state, queue, priority, kind, run_at from p$$,
  $$select id, 'available'::awa.job_state, 'pq'::text, 2::smallint, 'promote.k'::text, now() + interval '30 seconds' from j$$,
  'promote_due_jobs returns the due job as available with its original run_at');

select is((select count(*)::int from awa.deferred_jobs where job_id = (select id from j)), 0,
          'the job left the deferred backlog');

select is((select count(*)::int from awa.ready_entries where job_id = (select id from j)), 1,
          'the job has one ready row');

select is((select state from awa.jobs where id = (select id from j)), 'available'::awa.job_state,
          'awa.jobs shows the job available');

select results_eq(
  $$select id, attempt, run_lease, args from awa.claim_ready_runtime('pq', 10, null, now() + interval '32 seconds')$$,
  $$select id, 1, 1::bigint, '{"n": 1}'::jsonb from j$$,
  'the promoted job is claimable as its first attempt');

select * from finish();
rollback;
