-- cancel_jobs ends a claimed job cancelled: a terminal snapshot with the
-- reason appended to errors for the attempt, nothing deferred.
begin;
select plan(5);

create temp table claimed as select * from awa_test.claim_one('k', '{"n": 1}', '{"queue": "cn"}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.cancel_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), array['user asked'], '2030-01-01 12:00:10+00')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from claimed$$,
  'the item is applied with state cancelled');
select results_eq(
  $$select state, dlq, attempt, finalized_at, errors from awa.jobs where id = (select id from claimed)$$,
  $$values ('cancelled'::awa.job_state, false, 1, '2030-01-01 12:00:10+00'::timestamptz,
            '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "user asked"}]'::jsonb)$$,
  'awa.jobs shows the job cancelled at p_now with the reason in errors');
select is((select count(*) from awa.done_entries where job_id = (select id from claimed) and state = 'cancelled'), 1::bigint,
  'a cancelled terminal snapshot is written');
select is((select count(*) from awa.deferred_jobs where job_id = (select id from claimed)), 0::bigint, 'nothing is deferred');
select results_eq($$select running, cancelled from awa.queue_counts('cn')$$, $$values (0::bigint, 1::bigint)$$,
  'queue_counts shows 0 running, 1 cancelled');

select * from finish();
rollback;
