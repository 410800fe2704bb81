-- After a DLQ retry the next claim gets a run_lease above the attempt that
-- went to the DLQ, and any finalizer of that pre-DLQ attempt stays stale.
begin;
select plan(5);

create temp table c1 as select * from awa_test.dlq_claim('dlq.k', '{}', '{"queue": "dlqq", "max_attempts": 1}', now());
select * from awa.retry_dlq_job((select id from c1), null, now() + interval '1 minute');

create temp table c2 as select * from awa.claim_ready_runtime('dlqq', 1, null, now() + interval '2 minutes');

select results_eq(
  $$select id, attempt from c2$$, $$select id, 1 from c1$$,
  'the retried job is claimed again as attempt 1');
select ok((select run_lease from c2) > (select run_lease from c1),
          'the new claim has a higher run_lease than the pre-DLQ attempt');

select results_eq(
  $$select job_id, outcome from awa.complete_jobs(array[(select id from c1)], array[(select run_lease from c1)],
                                                  array[(select claim_slot from c1)], array[(select receipt_id from c1)],
                                                  now() + interval '3 minutes')$$,
  $$select id, 'stale'::awa.finalize_outcome from c1$$,
  'a finalizer of the pre-DLQ attempt is stale');

select results_eq(
  $$select job_id, outcome from awa.complete_jobs(array[(select id from c2)], array[(select run_lease from c1)],
                                                  array[(select claim_slot from c2)], array[(select receipt_id from c2)],
                                                  now() + interval '3 minutes')$$,
  $$select id, 'stale'::awa.finalize_outcome from c1$$,
  'the pre-DLQ run_lease on the new receipt is stale too');

select results_eq(
  $$select job_id, outcome, state from awa.complete_jobs(array[(select id from c2)], array[(select run_lease from c2)],
                                                         array[(select claim_slot from c2)], array[(select receipt_id from c2)],
                                                         now() + interval '3 minutes')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'completed'::awa.job_state from c2$$,
  'the new attempt completes');

select * from finish();
rollback;
