-- promote_due_jobs(limit) promotes at most limit jobs, the oldest run_at
-- first, and appends them to their lane in that order (FIFO for the claim).
begin;
select plan(5);

create temp table j (name text, id bigint);
insert into j select 'c', id from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'run_at', now() + interval '30 seconds'));
insert into j select 'a', id from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'run_at', now() + interval '10 seconds'));
insert into j select 'b', id from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'run_at', now() + interval '20 seconds'));

select results_eq(
  $$select id from awa.promote_due_jobs(2, now() + interval '1 minute')$$,
  $$select id from j where name in ('a', 'b') order by name$$,
  'limit 2 promotes the two oldest due jobs, oldest first');

select is((select state from awa.jobs where id = (select id from j where name = 'c')), 'scheduled'::awa.job_state,
          'the youngest due job waits for the next call');

select results_eq(
  $$select id from awa.claim_ready_runtime('pq', 10, null, now() + interval '1 minute')$$,
  $$select id from j where name in ('a', 'b') order by name$$,
  'the promoted jobs are claimed in run_at order');

select results_eq(
  $$select id from awa.promote_due_jobs(2, now() + interval '1 minute')$$,
  $$select id from j where name = 'c'$$,
  'the next call promotes the remaining due job');

select is((select count(*)::int from awa.deferred_jobs), 0, 'the backlog is empty');

select * from finish();
rollback;
