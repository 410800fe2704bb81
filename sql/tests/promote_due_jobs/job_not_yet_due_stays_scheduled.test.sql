-- Jobs whose run_at is still in the future are left in the backlog; a call
-- with nothing due returns nothing and writes nothing.
begin;
select plan(6);

create temp table early as
select * from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'run_at', now() + interval '10 seconds'));
create temp table late as
select * from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'run_at', now() + interval '60 seconds'));

select is_empty($$select * from awa.promote_due_jobs(100, now() + interval '9 seconds')$$,
                'nothing is promoted while no job is due');

select awa_test.writes_nothing($$select * from awa.promote_due_jobs(100, now() + interval '9 seconds')$$,
                               'a call with nothing due writes nothing');

select results_eq(
  $$select id from awa.promote_due_jobs(100, now() + interval '30 seconds')$$,
  $$select id from early$$,
  'only the due job is promoted');

select is((select state from awa.jobs where id = (select id from late)), 'scheduled'::awa.job_state,
          'the job not yet due stays scheduled');

select is((select run_at from awa.deferred_jobs where job_id = (select id from late)), now() + interval '60 seconds',
          'the job not yet due keeps its run_at in the backlog');

select is_empty($$select * from awa.claim_ready_runtime('pq', 10, null, now() + interval '30 seconds') c
                  where c.id = (select id from late)$$,
                'the job not yet due cannot be claimed');

select * from finish();
rollback;
