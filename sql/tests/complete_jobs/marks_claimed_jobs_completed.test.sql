-- complete_jobs applies to open attempts: each job becomes completed, shows in
-- awa.jobs and awa.terminal_jobs with its attempt and the completion time, and
-- is no longer running.
begin;
select plan(6);

select * from awa.insert_jobs(array['a', 'b'], array['{"n": 1}', '{"n": 2}']::jsonb[], array_fill('{"queue": "cq"}'::jsonb, array[2]));
create temp table claimed as select * from awa.claim_ready_runtime('cq', 2, null, '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.complete_jobs(
      array(select id from claimed order by id), array(select run_lease from claimed order by id),
      array(select claim_slot from claimed order by id), array(select receipt_id from claimed order by id),
      '2030-01-01 12:00:05+00') order by job_id$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'completed'::awa.job_state from claimed order by id$$,
  'each item is applied with state completed and its run_lease');
select results_eq(
  $$select j.id, j.state, j.attempt, j.run_lease, j.finalized_at, j.args
    from awa.jobs j join claimed c on c.id = j.id order by j.id$$,
  $$select id, 'completed'::awa.job_state, 1, 1::bigint, '2030-01-01 12:00:05+00'::timestamptz, args from claimed order by id$$,
  'awa.jobs shows each job completed at attempt 1, finalized at p_now');
select is((select count(*) from awa.jobs j join claimed c on c.id = j.id), 2::bigint,
  'awa.jobs shows each job exactly once');
select bag_eq(
  $$select t.id, t.state from awa.terminal_jobs t join claimed c on c.id = t.id$$,
  $$select id, 'completed'::awa.job_state from claimed$$,
  'awa.terminal_jobs lists both jobs as completed');
select results_eq($$select running, completed from awa.queue_counts('cq')$$, $$values (0::bigint, 2::bigint)$$,
  'queue_counts shows 0 running, 2 completed');
select is((select count(*) from awa.claim_closures where queue = 'cq' and outcome = 'completed'), 1::bigint,
  'one closure row records the completed receipts');

select * from finish();
rollback;
