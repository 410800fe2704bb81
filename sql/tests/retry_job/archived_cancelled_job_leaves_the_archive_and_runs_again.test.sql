-- A cancelled job whose ring slot was pruned lives in the archive; retry_job
-- removes its archived row and runs it again (scheduled, given a run_at in
-- the future), so it shows once.
begin;
select plan(4);

create temp table j as select * from awa.insert_job('retry.k', '{"n": 2}', '{"queue": "rq"}');
select count(*) from j, awa.cancel_job(j.id);
select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the cancelled job''s slot is pruned (fixture)');
select is((select count(*) from j, awa_test.archived_jobs a where a.job_id = j.id), 1::bigint, 'the job is archived (fixture)');

select results_eq(
  $$select r.state, r.run_at from j, awa.retry_job(j.id, now() + interval '1 hour') as r$$,
  $$values ('scheduled'::awa.job_state, now() + interval '1 hour')$$,
  'retry_job with a future run_at schedules it');
select results_eq(
  $$select x.state, (select count(*) from awa_test.archived_jobs a where a.job_id = x.id) from j, awa.jobs x where x.id = j.id$$,
  $$values ('scheduled'::awa.job_state, 0::bigint)$$,
  'it shows once, scheduled, and its archived row is gone');

select * from finish();
rollback;
