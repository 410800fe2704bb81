-- The same receipt given twice in one call is applied once (its first
-- occurrence) and the repeat is reported stale.
begin;
select plan(3);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "dup"}', '2030-01-01 12:00:00+00');

create temp table results as
select * from awa.complete_jobs(
  array(select id from claimed) || array(select id from claimed),
  array(select run_lease from claimed) || array(select run_lease from claimed),
  array(select claim_slot from claimed) || array(select claim_slot from claimed),
  array(select receipt_id from claimed) || array(select receipt_id from claimed),
  '2030-01-01 12:00:05+00');

select bag_eq($$select job_id, outcome from results$$,
  $$select id, 'applied'::awa.finalize_outcome from claimed union all select id, 'stale' from claimed$$,
  'one item is applied and its repeat is stale');
select is((select sum(cardinality(job_ids)) from awa.done_completions where queue = 'dup'), 1::bigint,
  'the job is recorded completed once');
select is((select count(*) from awa.jobs where id = (select id from claimed)), 1::bigint,
  'awa.jobs shows the job once');

select * from finish();
rollback;
