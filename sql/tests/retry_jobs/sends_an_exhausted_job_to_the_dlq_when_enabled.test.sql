-- On a queue with the DLQ on, a job whose attempts are exhausted goes to the
-- DLQ: a dlq_entries row, awa.jobs shows it failed with dlq = true.
begin;
select plan(6);

select * from awa.configure_queue('rtdlq', '{"dlq": true}');
create temp table claimed as select * from awa_test.claim_one('doomed', '{"x": 1}', '{"queue": "rtdlq", "max_attempts": 1}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, outcome, state from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), array['fatal'], null,
      '2030-01-01 12:00:10+00')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from claimed$$,
  'the exhausted retry is applied with state failed');
select results_eq(
  $$select job_id, attempt, max_attempts, args, failed_at, errors -> 0 ->> 'error' from awa.dlq_entries where queue = 'rtdlq'$$,
  $$select id, 1, 1, '{"x": 1}'::jsonb, '2030-01-01 12:00:10+00'::timestamptz, 'fatal' from claimed$$,
  'the DLQ holds the job with its attempt, args, failure time and error');
select results_eq($$select state, dlq from awa.jobs where id = (select id from claimed)$$,
  $$values ('failed'::awa.job_state, true)$$, 'awa.jobs shows the job failed with dlq = true');
select is((select count(*) from awa.done_entries where job_id = (select id from claimed)), 0::bigint,
  'no failed terminal snapshot is written besides the DLQ row');
select is((select count(*) from awa.jobs where id = (select id from claimed)), 1::bigint, 'awa.jobs shows the job once');

select * from awa.insert_job('flaky', '{}', '{"queue": "rtdlq", "max_attempts": 2}');
create temp table claimed2 as select * from awa.claim_ready_runtime('rtdlq', 1, null, '2030-01-01 12:01:00+00');
select results_eq(
  $$select state from awa.retry_jobs(array(select id from claimed2), array(select run_lease from claimed2),
      array(select claim_slot from claimed2), array(select receipt_id from claimed2), array['e'], null,
      '2030-01-01 12:01:10+00')$$,
  $$values ('retryable'::awa.job_state)$$,
  'on the same DLQ queue a job with attempts left is still retried, not sent to the DLQ');

select * from finish();
rollback;
