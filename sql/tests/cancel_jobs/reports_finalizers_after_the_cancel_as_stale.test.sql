-- After a cancel, the same attempt is closed: cancelling it again, completing,
-- retrying or failing it are all stale and write nothing.
begin;
select plan(6);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "cns"}', '2030-01-01 12:00:00+00');
prepare cancel_it as
  select job_id, outcome, state from awa.cancel_jobs(array(select id from claimed), array(select run_lease from claimed),
    array(select claim_slot from claimed), array(select receipt_id from claimed), array['stop'], '2030-01-01 12:00:10+00');

select results_eq('cancel_it', $$select id, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from claimed$$,
  'the first cancel is applied');
select results_eq('cancel_it', $$select id, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$,
  'a second cancel is stale');
select awa_test.writes_nothing('execute cancel_it', 'a stale cancel writes nothing');
select results_eq(
  $$select outcome from awa.complete_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), '2030-01-01 12:00:20+00')
    union all
    select outcome from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), array['e'], null, '2030-01-01 12:00:20+00')
    union all
    select outcome from awa.fail_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), array['e'], '2030-01-01 12:00:20+00')$$,
  $$values ('stale'::awa.finalize_outcome), ('stale'::awa.finalize_outcome), ('stale'::awa.finalize_outcome)$$,
  'complete, retry and fail of the cancelled attempt are stale');
select results_eq($$select state, jsonb_array_length(errors) from awa.jobs where id = (select id from claimed)$$,
  $$values ('cancelled'::awa.job_state, 1)$$, 'the job stays cancelled with one error entry');
select is((select count(*) from awa.jobs where id = (select id from claimed)), 1::bigint, 'awa.jobs shows the job once');

select * from finish();
rollback;
