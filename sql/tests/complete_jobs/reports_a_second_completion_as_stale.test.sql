-- Completing the same attempt twice: the second call reports stale, changes
-- nothing and writes nothing.
begin;
select plan(4);

create temp table claimed as select * from awa_test.claim_one('once', '{}', '{"queue": "twice"}', '2030-01-01 12:00:00+00');
prepare complete_it as
  select job_id, run_lease, outcome, state from awa.complete_jobs(
    array(select id from claimed), array(select run_lease from claimed),
    array(select claim_slot from claimed), array(select receipt_id from claimed), '2030-01-01 12:00:05+00');

select results_eq('complete_it', $$select id, run_lease, 'applied'::awa.finalize_outcome, 'completed'::awa.job_state from claimed$$,
  'the first completion is applied');
select results_eq('complete_it', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$,
  'the second completion is stale with a NULL state');
select awa_test.writes_nothing('execute complete_it', 'a stale completion writes nothing');
select results_eq($$select state, finalized_at from awa.jobs where id = (select id from claimed)$$,
  $$values ('completed'::awa.job_state, '2030-01-01 12:00:05+00'::timestamptz)$$,
  'the job stays completed as of the first completion');

select * from finish();
rollback;
