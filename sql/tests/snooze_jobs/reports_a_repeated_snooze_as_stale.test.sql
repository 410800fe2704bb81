-- Snoozing the same attempt twice: the second call is stale and writes
-- nothing; the job keeps the first run_at. A later completion of that
-- attempt is stale too.
begin;
select plan(5);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "snst"}', '2030-01-01 12:00:00+00');
prepare snooze_it(timestamptz) as
  select job_id, outcome, state from awa.snooze_jobs(array(select id from claimed), array(select run_lease from claimed),
    array(select claim_slot from claimed), array(select receipt_id from claimed), array[$1], '2030-01-01 12:00:10+00');

select results_eq($$execute snooze_it('2030-01-01 13:00:00+00')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'scheduled'::awa.job_state from claimed$$, 'the first snooze is applied');
select results_eq($$execute snooze_it('2030-01-01 14:00:00+00')$$,
  $$select id, 'stale'::awa.finalize_outcome, null::awa.job_state from claimed$$, 'the second snooze is stale');
select awa_test.writes_nothing($$execute snooze_it('2030-01-01 15:00:00+00')$$, 'a stale snooze writes nothing');
select is((select run_at from awa.jobs where id = (select id from claimed)), '2030-01-01 13:00:00+00'::timestamptz,
  'the job keeps the run_at of the first snooze');
select results_eq(
  $$select outcome from awa.complete_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), '2030-01-01 12:00:20+00')$$,
  $$values ('stale'::awa.finalize_outcome)$$,
  'completing the snoozed attempt is stale');

select * from finish();
rollback;
