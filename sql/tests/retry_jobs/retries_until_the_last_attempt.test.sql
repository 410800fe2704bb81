-- With max_attempts 2, the first failure is retried and the second fails the
-- job: the boundary is attempt >= max_attempts.
begin;
select plan(2);

select * from awa.insert_job('twice', '{}', '{"queue": "two", "max_attempts": 2}');
create temp table c1 as select * from awa.claim_ready_runtime('two', 1, null, '2030-01-01 12:00:00+00');
select results_eq(
  $$select state from awa.retry_jobs(array(select id from c1), array(select run_lease from c1), array(select claim_slot from c1),
      array(select receipt_id from c1), array['e1'], array['2030-01-01 12:00:00+00'::timestamptz], '2030-01-01 12:00:00+00')$$,
  $$values ('retryable'::awa.job_state)$$,
  'attempt 1 of 2 becomes retryable');

select * from awa.promote_due_jobs(10, '2030-01-01 12:00:01+00');
create temp table c2 as select * from awa.claim_ready_runtime('two', 1, null, '2030-01-01 12:00:02+00');
select results_eq(
  $$select state from awa.retry_jobs(array(select id from c2), array(select run_lease from c2), array(select claim_slot from c2),
      array(select receipt_id from c2), array['e2'], null, '2030-01-01 12:00:03+00')$$,
  $$values ('failed'::awa.job_state)$$,
  'attempt 2 of 2 fails');

select * from finish();
rollback;
