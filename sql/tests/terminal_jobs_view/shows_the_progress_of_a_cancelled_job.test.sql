-- A running job cancelled by an operator keeps its checkpoint: its
-- cancelled row in awa.terminal_jobs shows progress and progress_at.
begin;
select plan(1);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "pc"}', '2030-01-01 12:00:00+00');
select * from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 4}', '2030-01-01 12:00:05+00');
select awa.cancel_job((select id from c), 'stop', '2030-01-01 12:00:06+00');

select results_eq(
  $$select state, progress, progress_at from awa.terminal_jobs where id = (select id from c)$$,
  $$values ('cancelled'::awa.job_state, '{"step": 4}'::jsonb, '2030-01-01 12:00:05+00'::timestamptz)$$,
  'the cancelled row shows the checkpoint');

select * from finish();
rollback;
