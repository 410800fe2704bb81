-- retry_jobs with a retry_at makes the job retryable at exactly that time, in
-- the deferred backlog, with the failed attempt counted.
begin;
select plan(5);

create temp table claimed as select * from awa_test.claim_one('flaky', '{"n": 1}', '{"queue": "rt", "max_attempts": 5}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.retry_jobs(
      array(select id from claimed), array(select run_lease from claimed), array(select claim_slot from claimed),
      array(select receipt_id from claimed), array['timeout'], array['2030-01-01 12:30:00+00'::timestamptz],
      '2030-01-01 12:00:10+00')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from claimed$$,
  'the item is applied with state retryable');
select results_eq(
  $$select d.state, d.run_at, d.attempt, d.run_lease, d.max_attempts, d.args from awa.deferred_jobs d where d.job_id = (select id from claimed)$$,
  $$values ('retryable'::awa.job_state, '2030-01-01 12:30:00+00'::timestamptz, 1, 1::bigint, 5, '{"n": 1}'::jsonb)$$,
  'the deferred backlog holds the job retryable at retry_at, attempt 1 counted, run_lease kept');
select results_eq(
  $$select state, run_at, attempt from awa.jobs where id = (select id from claimed)$$,
  $$values ('retryable'::awa.job_state, '2030-01-01 12:30:00+00'::timestamptz, 1)$$,
  'awa.jobs shows the job retryable at retry_at');
select is_empty($$select * from awa.claim_ready_runtime('rt', 1, null, '2030-01-01 12:00:20+00')$$,
  'a retryable job is not claimable before it is promoted');
select is((select count(*) from awa.promote_due_jobs(10, '2030-01-01 12:29:59+00')), 0::bigint,
  'it is not promoted before retry_at');

select * from finish();
rollback;
