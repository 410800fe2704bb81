-- Failing the same attempt twice: the second call is stale and writes nothing.
begin;
select plan(4);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "flst"}', '2030-01-01 12:00:00+00');
prepare fail_it as
  select job_id, outcome, state from awa.fail_jobs(array(select id from claimed), array(select run_lease from claimed),
    array(select claim_slot from claimed), array(select receipt_id from claimed), array['e'], '2030-01-01 12:00:10+00');

select results_eq('fail_it', $$select id, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from claimed$$,
  'the first fail is applied');
select results_eq('fail_it', $$select id, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$,
  'the second fail is stale');
select awa_test.writes_nothing('execute fail_it', 'a stale fail writes nothing');
select is((select count(*) from awa.done_entries where job_id = (select id from claimed)), 1::bigint,
  'one terminal snapshot only');

select * from finish();
rollback;
