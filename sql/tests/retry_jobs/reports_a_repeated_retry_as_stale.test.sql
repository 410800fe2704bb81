-- Retrying the same attempt twice: the second call is stale, appends no
-- second error and writes nothing; a completion after the retry is stale too.
begin;
select plan(4);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "rtstale"}', '2030-01-01 12:00:00+00');
prepare retry_it as
  select job_id, run_lease, outcome, state from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed),
    array(select claim_slot from claimed), array(select receipt_id from claimed), array['e'],
    array['2030-01-01 13:00:00+00'::timestamptz], '2030-01-01 12:00:10+00');

select results_eq('retry_it', $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from claimed$$,
  'the first retry is applied');
select results_eq('retry_it', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$,
  'the second retry of the same attempt is stale');
select awa_test.writes_nothing('execute retry_it', 'a stale retry writes nothing');
select is((select jsonb_array_length(errors) from awa.jobs where id = (select id from claimed)), 1,
  'only one error is recorded');

select * from finish();
rollback;
