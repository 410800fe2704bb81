-- A snoozed job shows as scheduled at its snooze time; the attempt is not
-- counted but the run_lease of the snoozed claim is kept.
begin;
select plan(1);

create temp table j as select * from awa.insert_job('view.k', '{}', '{"queue": "vq"}');
create temp table c as select * from awa.claim_ready_runtime('vq', 1, null, now());
select * from awa.snooze_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                              array[(select receipt_id from c)], array[now() + interval '10 minutes'], now());

select results_eq(
  $$select state, attempt, run_lease, run_at, errors from awa.jobs where id = (select id from j)$$,
  $$values ('scheduled'::awa.job_state, 0, 1::bigint, now() + interval '10 minutes', null::jsonb)$$,
  'the snoozed job is scheduled, attempt 0, run_lease 1, no error');

select * from finish();
rollback;
