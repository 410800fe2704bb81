-- A retried job keeps its checkpoint: awa.jobs and awa.job show it on the
-- retryable job, and on its next attempt once claimed again.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "pr"}', '2030-01-01 12:00:00+00');
select * from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 2}', '2030-01-01 12:00:05+00');
select * from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                array['boom'], array['2030-01-01 12:00:10+00'::timestamptz], '2030-01-01 12:00:06+00');

select results_eq(
  $$select state, progress, progress_at from awa.jobs where id = (select id from c)$$,
  $$values ('retryable'::awa.job_state, '{"step": 2}'::jsonb, '2030-01-01 12:00:05+00'::timestamptz)$$,
  'awa.jobs shows the checkpoint on the retryable job');
select results_eq(
  $$select state, progress from awa.job((select id from c))$$,
  $$values ('retryable'::awa.job_state, '{"step": 2}'::jsonb)$$,
  'awa.job shows it too');

select awa.promote_due_jobs(10, '2030-01-01 12:00:11+00');
select awa.claim_ready_runtime('pr', 1, NULL, '2030-01-01 12:00:12+00');
select results_eq(
  $$select state, attempt, progress from awa.jobs where id = (select id from c)$$,
  $$values ('running'::awa.job_state, 2, '{"step": 2}'::jsonb)$$,
  'the next attempt shows the checkpoint it can resume from');

select * from finish();
rollback;
