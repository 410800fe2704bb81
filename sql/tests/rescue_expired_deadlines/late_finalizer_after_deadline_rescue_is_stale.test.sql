-- The worker that overran its deadline finalizes too late: stale, no change.
begin;
select plan(4);

select * from awa.configure_queue('dq', '{"deadline_seconds": 5}');
create temp table j as select * from awa.insert_job('deadline.k', '{}', '{"queue": "dq"}');
create temp table c as select * from awa.claim_ready_runtime('dq', 1, null, now());
select * from awa.rescue_expired_deadlines(1000, now() + interval '6 seconds');

select results_eq(
  $$select job_id, outcome from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                                  array[(select claim_slot from c)], array[(select receipt_id from c)],
                                                  now() + interval '7 seconds')$$,
  $$select id, 'stale'::awa.finalize_outcome from c$$,
  'the late complete is stale');

select results_eq(
  $$select job_id, outcome from awa.retry_jobs(array[(select id from c)], array[(select run_lease from c)],
                                               array[(select claim_slot from c)], array[(select receipt_id from c)],
                                               array['late error'], null, now() + interval '7 seconds')$$,
  $$select id, 'stale'::awa.finalize_outcome from c$$,
  'a late retry is stale too');

select awa_test.writes_nothing(
  $$select * from awa.fail_jobs(array[(select id from c)], array[(select run_lease from c)],
                               array[(select claim_slot from c)], array[(select receipt_id from c)],
                               array['late error'], now() + interval '7 seconds')$$,
  'a late fail writes nothing');

select results_eq(
  $$select state, jsonb_array_length(errors) from awa.jobs where id = (select id from j)$$,
  $$values ('retryable'::awa.job_state, 1)$$,
  'the job stays retryable with only the rescue error');

select * from finish();
rollback;
