-- A snooze does not count the attempt: once promoted, the next claim has the
-- same attempt number (with a new run_lease), so a job with max_attempts 1
-- can be snoozed and still run.
begin;
select plan(4);

select * from awa.insert_job('later', '{}', '{"queue": "snc", "max_attempts": 1}');
create temp table c1 as select * from awa.claim_ready_runtime('snc', 1, null, '2030-01-01 12:00:00+00');
select * from awa.snooze_jobs(array(select id from c1), array(select run_lease from c1), array(select claim_slot from c1),
  array(select receipt_id from c1), array['2030-01-01 12:05:00+00'::timestamptz], '2030-01-01 12:00:10+00');

select is((select attempt from awa.jobs where id = (select id from c1)), 0, 'the snoozed job shows attempt 0');
select results_eq($$select id from awa.promote_due_jobs(10, '2030-01-01 12:05:00+00')$$, $$select id from c1$$,
  'the job is promoted at run_at');
create temp table c2 as select * from awa.claim_ready_runtime('snc', 1, null, '2030-01-01 12:06:00+00');
select results_eq($$select id, attempt, run_lease from c2$$, $$select id, attempt, run_lease + 1 from c1$$,
  'the next claim has the same attempt number and run_lease + 1');
select results_eq(
  $$select state from awa.retry_jobs(array(select id from c2), array(select run_lease from c2), array(select claim_slot from c2),
      array(select receipt_id from c2), array['e'], null, '2030-01-01 12:06:10+00')$$,
  $$values ('failed'::awa.job_state)$$,
  'the attempt after the snooze is still the first and only one (a retry fails it with max_attempts 1)');

select * from finish();
rollback;
