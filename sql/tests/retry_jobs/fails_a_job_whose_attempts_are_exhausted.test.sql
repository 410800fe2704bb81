-- A retry of the last allowed attempt fails the job instead (queue without
-- DLQ): state failed, a terminal snapshot with the error, nothing deferred.
begin;
select plan(6);

create temp table claimed as select * from awa_test.claim_one('doomed', '{"x": 1}', '{"queue": "exh", "max_attempts": 1}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, outcome, state from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), array['fatal'],
      array['2030-01-01 13:00:00+00'::timestamptz], '2030-01-01 12:00:10+00')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from claimed$$,
  'with max_attempts 1 the retry is applied with state failed');
select results_eq(
  $$select state, dlq, attempt, finalized_at, errors from awa.jobs where id = (select id from claimed)$$,
  $$values ('failed'::awa.job_state, false, 1, '2030-01-01 12:00:10+00'::timestamptz,
            '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "fatal"}]'::jsonb)$$,
  'awa.jobs shows the job failed (not DLQ) with its error');
select is((select count(*) from awa.done_entries where job_id = (select id from claimed) and state = 'failed'), 1::bigint,
  'a failed terminal snapshot is written');
select is((select count(*) from awa.deferred_jobs where job_id = (select id from claimed)), 0::bigint,
  'nothing is deferred');
select is((select count(*) from awa.dlq_entries where job_id = (select id from claimed)), 0::bigint,
  'nothing goes to the DLQ');
select is((select failed from awa.queue_counts('exh')), 1::bigint, 'queue_counts counts it failed');

select * from finish();
rollback;
