-- A backoff retry works for every (job_id, run_lease). The backoff jitter hashes
-- job_id + run_lease with hashint8(), which returns -2147483648 for
-- 963809240 (and two other values below 2^32); abs() of that overflows int4.
-- The job is planted with id 963809239 (awa_test.claim_planted_job); its
-- first claim gets run_lease 1, and 963809239 + 1 = 963809240.
begin;
select plan(3);

create temp table claimed as
select * from awa_test.claim_planted_job('jitter_retry', 963809239, '2030-01-01 12:00:00+00');
select results_eq($$select id, run_lease from claimed$$, $$values (963809239::bigint, 1::bigint)$$,
  'setup: job 963809239 is claimed with run_lease 1');

select lives_ok($$select * from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed), array(select claim_slot from claimed), array(select receipt_id from claimed), array['boom'], null, '2030-01-01 12:00:10+00')$$,
  'a backoff retry of job 963809239 at run_lease 1 does not raise');
select is((select state from awa.jobs where id = 963809239), 'retryable'::awa.job_state,
  'the job ends retryable');

select * from finish();
rollback;
