-- Promotion appends each job to the lane of its own priority, so a due
-- priority-1 job is claimed before an older due priority-3 job.
begin;
select plan(2);

create temp table low as
select * from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'priority', 3, 'run_at', now() + interval '10 seconds'));
create temp table high as
select * from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'priority', 1, 'run_at', now() + interval '20 seconds'));

select results_eq($$select id, priority from awa.promote_due_jobs(100, now() + interval '1 minute')$$,
                  $$select id, priority from low union all select id, priority from high$$,
                  'both are promoted, oldest first, with their priorities');
select results_eq($$select id from awa.claim_ready_runtime('pq', 2, null, now() + interval '1 minute')$$,
                  $$select id from high union all select id from low$$,
                  'the priority-1 job is claimed first');

select * from finish();
rollback;
