-- An item whose run_lease is not the claimed one (an older or a future lease)
-- is stale, writes nothing and leaves the job running.
begin;
select plan(5);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "lease"}', '2030-01-01 12:00:00+00');

prepare old_lease as
  select job_id, run_lease, outcome, state from awa.complete_jobs(
    array(select id from claimed), array(select run_lease - 1 from claimed),
    array(select claim_slot from claimed), array(select receipt_id from claimed), '2030-01-01 12:00:05+00');
select results_eq('old_lease', $$select id, run_lease - 1, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$,
  'the previous run_lease is stale');
select awa_test.writes_nothing('execute old_lease', 'an old run_lease writes nothing');

prepare next_lease as
  select job_id, run_lease, outcome, state from awa.complete_jobs(
    array(select id from claimed), array(select run_lease + 1 from claimed),
    array(select claim_slot from claimed), array(select receipt_id from claimed), '2030-01-01 12:00:05+00');
select results_eq('next_lease', $$select id, run_lease + 1, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$,
  'a run_lease ahead of the claim is stale');
select awa_test.writes_nothing('execute next_lease', 'a future run_lease writes nothing');

select is((select state from awa.jobs where id = (select id from claimed)), 'running'::awa.job_state,
  'the job is still running');

select * from finish();
rollback;
