-- retry_dlq_job with a future run_at parks the job as scheduled at attempt 0;
-- it is promoted when due.
begin;
select plan(4);

select * from awa.configure_queue('dlqq', '{"dlq": true}');
create temp table j as select * from awa.insert_job('dlq.k', '{}', '{"queue": "dlqq", "max_attempts": 1}');
create temp table c as select * from awa.claim_ready_runtime('dlqq', 1, null, now());
select * from awa.fail_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                            array[(select receipt_id from c)], array['fatal'], now());

select results_eq(
  $$select id, state, run_at from awa.retry_dlq_job((select id from j), now() + interval '1 hour', now())$$,
  $$select id, 'scheduled'::awa.job_state, now() + interval '1 hour' from j$$,
  'a future run_at returns the job scheduled at that time');

select results_eq(
  $$select state, attempt, run_lease, dlq from awa.jobs where id = (select id from j)$$,
  $$values ('scheduled'::awa.job_state, 0, 1::bigint, false)$$,
  'awa.jobs shows it scheduled, attempt 0, run_lease kept');

select is_empty($$select * from awa.claim_ready_runtime('dlqq', 1, null, now())$$, 'it is not claimable before run_at');

select results_eq($$select id from awa.promote_due_jobs(100, now() + interval '1 hour')$$, $$select id from j$$,
                  'it is promoted when due');

select * from finish();
rollback;
