-- retry_dlq_job with a future run_at parks the job as scheduled at attempt 0;
-- it is promoted when due.
begin;
select plan(4);

create temp table c as select * from awa_test.dlq_claim('dlq.k', '{}', '{"queue": "dlqq", "max_attempts": 1}', now());

select results_eq(
  $$select id, state, run_at from awa.retry_dlq_job((select id from c), now() + interval '1 hour', now())$$,
  $$select id, 'scheduled'::awa.job_state, now() + interval '1 hour' from c$$,
  'a future run_at returns the job scheduled at that time');

select results_eq(
  $$select state, attempt, run_lease, dlq from awa.jobs where id = (select id from c)$$,
  $$values ('scheduled'::awa.job_state, 0, 1::bigint, false)$$,
  'awa.jobs shows it scheduled, attempt 0, run_lease kept');

select is_empty($$select * from awa.claim_ready_runtime('dlqq', 1, null, now())$$, 'it is not claimable before run_at');

select results_eq($$select id from awa.promote_due_jobs(100, now() + interval '1 hour')$$, $$select id from c$$,
                  'it is promoted when due');

select * from finish();
rollback;
