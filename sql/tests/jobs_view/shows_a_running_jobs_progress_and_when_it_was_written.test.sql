-- A running job's progress checkpoint (awa.set_progress) shows in awa.jobs
-- and awa.job as progress and progress_at; a job that never reported
-- progress shows NULL in both.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "pv"}', '2030-01-01 12:00:00+00');
create temp table q as select * from awa_test.claim_one('k', '{}', '{"queue": "pv2"}', '2030-01-01 12:00:00+00');
select * from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 3}', '2030-01-01 12:00:05+00');

select results_eq(
  $$select state, progress, progress_at from awa.jobs where id = (select id from c)$$,
  $$values ('running'::awa.job_state, '{"step": 3}'::jsonb, '2030-01-01 12:00:05+00'::timestamptz)$$,
  'awa.jobs shows the running job''s checkpoint and its time');
select results_eq(
  $$select state, progress, progress_at from awa.job((select id from c))$$,
  $$values ('running'::awa.job_state, '{"step": 3}'::jsonb, '2030-01-01 12:00:05+00'::timestamptz)$$,
  'awa.job shows the same');
select results_eq(
  $$select state, progress, progress_at from awa.jobs where id = (select id from q)$$,
  $$values ('running'::awa.job_state, NULL::jsonb, NULL::timestamptz)$$,
  'a job that never reported progress shows none');

select * from finish();
rollback;
