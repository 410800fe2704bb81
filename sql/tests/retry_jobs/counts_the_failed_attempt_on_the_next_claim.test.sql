-- Once the retry is due and promoted, the next claim is attempt 2 with a new
-- run_lease, and the old attempt's receipt is stale.
begin;
select plan(5);

select * from awa.insert_job('flaky', '{}', '{"queue": "next"}');
create temp table c1 as select * from awa.claim_ready_runtime('next', 1, null, '2030-01-01 12:00:00+00');
select * from awa.retry_jobs(array(select id from c1), array(select run_lease from c1), array(select claim_slot from c1),
  array(select receipt_id from c1), array['e'], array['2030-01-01 12:01:00+00'::timestamptz], '2030-01-01 12:00:10+00');

select results_eq($$select id, state from awa.promote_due_jobs(10, '2030-01-01 12:01:00+00')$$,
  $$select id, 'available'::awa.job_state from c1$$, 'the due retry is promoted to available');
create temp table c2 as select * from awa.claim_ready_runtime('next', 1, null, '2030-01-01 12:02:00+00');
select results_eq($$select id, attempt, run_lease from c2$$, $$select id, 2, run_lease + 1 from c1$$,
  'the next claim is attempt 2 with run_lease + 1');
select results_eq(
  $$select outcome from awa.complete_jobs(array(select id from c1), array(select run_lease from c1),
      array(select claim_slot from c1), array(select receipt_id from c1), '2030-01-01 12:02:10+00')$$,
  $$values ('stale'::awa.finalize_outcome)$$,
  'the first attempt''s receipt is stale');
select results_eq(
  $$select outcome from awa.complete_jobs(array(select id from c2), array(select run_lease from c2),
      array(select claim_slot from c2), array(select receipt_id from c2), '2030-01-01 12:02:10+00')$$,
  $$values ('applied'::awa.finalize_outcome)$$,
  'the second attempt completes');
select results_eq($$select state, attempt from awa.jobs where id = (select id from c1)$$,
  $$values ('completed'::awa.job_state, 2)$$,
  'awa.jobs shows the job once, completed at attempt 2');

select * from finish();
rollback;
