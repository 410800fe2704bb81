-- snooze_jobs puts a claimed job back as scheduled at run_at: it waits in the
-- deferred backlog, is not claimable, and no error is recorded.
begin;
select plan(5);

create temp table claimed as select * from awa_test.claim_one('later', '{"n": 1}', '{"queue": "sn"}', '2030-01-01 12:00:00+00');

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.snooze_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed),
      array['2030-01-01 13:00:00+00'::timestamptz], '2030-01-01 12:00:10+00')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'scheduled'::awa.job_state from claimed$$,
  'the item is applied with state scheduled');
select results_eq(
  $$select d.state, d.run_at, d.run_lease, d.args from awa.deferred_jobs d where d.job_id = (select id from claimed)$$,
  $$select 'scheduled'::awa.job_state, '2030-01-01 13:00:00+00'::timestamptz, run_lease, args from claimed$$,
  'the deferred backlog holds the job scheduled at run_at, keeping the claimed run_lease');
select results_eq($$select state, run_at, errors from awa.jobs where id = (select id from claimed)$$,
  $$values ('scheduled'::awa.job_state, '2030-01-01 13:00:00+00'::timestamptz, null::jsonb)$$,
  'awa.jobs shows the job scheduled at run_at, with no error recorded');
select is_empty($$select * from awa.claim_ready_runtime('sn', 1, null, '2030-01-01 12:00:20+00')$$,
  'a snoozed job is not claimable');
select is((select count(*) from awa.promote_due_jobs(10, '2030-01-01 12:59:59+00')), 0::bigint,
  'it is not promoted before run_at');

select * from finish();
rollback;
