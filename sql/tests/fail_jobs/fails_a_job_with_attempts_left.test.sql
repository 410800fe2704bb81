-- fail_jobs fails a claimed job terminally even with attempts left: state
-- failed, the error appended, nothing deferred, not in the DLQ.
begin;
select plan(5);

create temp table claimed as select * from awa_test.claim_one('k', '{"n": 1}', '{"queue": "fl", "max_attempts": 25}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.fail_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), array['unknown kind'], '2030-01-01 12:00:10+00')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from claimed$$,
  'the item is applied with state failed at attempt 1 of 25');
select results_eq(
  $$select state, dlq, attempt, max_attempts, finalized_at, errors from awa.jobs where id = (select id from claimed)$$,
  $$values ('failed'::awa.job_state, false, 1, 25, '2030-01-01 12:00:10+00'::timestamptz,
            '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "unknown kind"}]'::jsonb)$$,
  'awa.jobs shows the job failed at p_now with the error');
select is((select count(*) from awa.done_entries where job_id = (select id from claimed) and state = 'failed'), 1::bigint,
  'a failed terminal snapshot is written');
select is((select count(*) from awa.deferred_jobs where job_id = (select id from claimed)), 0::bigint,
  'nothing is deferred for a retry');
select is((select count(*) from awa.dlq_entries where job_id = (select id from claimed)), 0::bigint,
  'nothing goes to the DLQ on a queue without it');

select * from finish();
rollback;
