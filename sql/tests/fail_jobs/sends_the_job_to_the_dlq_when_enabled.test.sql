-- On a queue with the DLQ on, fail_jobs sends the job to the DLQ even with
-- attempts left: a dlq_entries row, awa.jobs shows failed with dlq = true.
begin;
select plan(5);

select * from awa.configure_queue('fldlq', '{"dlq": true}');
create temp table claimed as select * from awa_test.claim_one('k', '{"n": 1}', '{"queue": "fldlq", "max_attempts": 5}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, outcome, state from awa.fail_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), array['bad input'], '2030-01-01 12:00:10+00')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from claimed$$,
  'the item is applied with state failed');
select results_eq(
  $$select job_id, run_lease, attempt, max_attempts, args, failed_at, errors from awa.dlq_entries where queue = 'fldlq'$$,
  $$select id, run_lease, 1, 5, '{"n": 1}'::jsonb, '2030-01-01 12:00:10+00'::timestamptz,
           '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "bad input"}]'::jsonb from claimed$$,
  'the DLQ row holds the job, its attempt, failure time and error');
select results_eq($$select state, dlq from awa.jobs where id = (select id from claimed)$$,
  $$values ('failed'::awa.job_state, true)$$, 'awa.jobs shows the job failed with dlq = true');
select is((select count(*) from awa.done_entries where job_id = (select id from claimed)), 0::bigint,
  'no failed terminal snapshot is written');
select is((select dlq from awa.queue_counts('fldlq')), 1::bigint, 'queue_counts counts it in the DLQ');

select * from finish();
rollback;
