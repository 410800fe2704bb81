-- A job that reported progress and then completed shows no progress in
-- awa.jobs, awa.job or awa.terminal_jobs (success deletes the checkpoint).
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "ps"}', '2030-01-01 12:00:00+00');
select * from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 9}', '2030-01-01 12:00:05+00');
select * from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                   '2030-01-01 12:00:06+00');

select results_eq(
  $$select state, progress, progress_at from awa.jobs where id = (select id from c)$$,
  $$values ('completed'::awa.job_state, NULL::jsonb, NULL::timestamptz)$$,
  'awa.jobs shows the completed job without progress');
select results_eq(
  $$select state, progress from awa.job((select id from c))$$,
  $$values ('completed'::awa.job_state, NULL::jsonb)$$,
  'awa.job too');
select results_eq(
  $$select state, progress from awa.terminal_jobs where id = (select id from c)$$,
  $$values ('completed'::awa.job_state, NULL::jsonb)$$,
  'awa.terminal_jobs too');

select * from finish();
rollback;
