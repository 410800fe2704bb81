-- An item with the right receipt_id but another claim slot is stale and writes
-- nothing.
begin;
select plan(3);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "slot"}', '2030-01-01 12:00:00+00');

prepare wrong_slot as
  select job_id, outcome, state from awa.complete_jobs(
    array(select id from claimed), array(select run_lease from claimed),
    array(select (claim_slot + 1) % (select slot_count from awa.ring_config where ring = 'claim') from claimed),
    array(select receipt_id from claimed), '2030-01-01 12:00:05+00');
select results_eq('wrong_slot', $$select id, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$,
  'a receipt presented with another claim slot is stale');
select awa_test.writes_nothing('execute wrong_slot', 'a wrong claim slot writes nothing');
select is((select state from awa.jobs where id = (select id from claimed)), 'running'::awa.job_state,
  'the job is still running');

select * from finish();
rollback;
