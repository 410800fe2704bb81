-- A job cancelled while available keeps its (tombstoned) ready row; retried
-- by retry_job, it gets a new ready row with the same run_lease (never
-- reset). cancel_job must act on the new row, not report the old, spent one
-- stale: the retried job is cancelled again while available, and again while
-- a worker runs it (its late complete then stale). erase_job, which cancels
-- first, erases such a job instead of giving up with AW021.
begin;
select plan(8);

create temp table j as select * from awa.insert_job('cancel.k', '{"secret": "s"}', '{"queue": "cq"}');
select count(*) from j, awa.cancel_job(j.id);
select count(*) from j, awa.retry_job(j.id);

select results_eq(
  $$select c.outcome, c.state from j, awa.cancel_job(j.id) as c$$,
  $$values ('applied'::awa.finalize_outcome, 'cancelled'::awa.job_state)$$,
  'cancel_job of the retried, available job is applied');
select results_eq($$select x.state from j, awa.jobs x where x.id = j.id$$, $$values ('cancelled'::awa.job_state)$$,
                  'awa.jobs shows it once, cancelled');
select is_empty($$select * from awa.claim_ready_runtime('cq', 10, null, now())$$, 'nothing is claimable');

-- Retried again and claimed: cancelled while running.
select count(*) from j, awa.retry_job(j.id);
create temp table c as select * from awa.claim_ready_runtime('cq', 10, null, now());
select is((select count(*) from c, j where c.id = j.id), 1::bigint, 'the retried job is claimed (fixture)');
select results_eq(
  $$select x.outcome, x.state from j, awa.cancel_job(j.id) as x$$,
  $$values ('applied'::awa.finalize_outcome, 'cancelled'::awa.job_state)$$,
  'cancel_job of the retried, running job is applied');
select results_eq(
  $$select f.outcome from c, awa.complete_jobs(ARRAY[c.id], ARRAY[c.run_lease], ARRAY[c.claim_slot], ARRAY[c.receipt_id]) f$$,
  $$values ('stale'::awa.finalize_outcome)$$,
  'the worker''s late complete is stale');

-- Retried once more, then erased: the cancel inside erase_job applies.
select count(*) from j, awa.retry_job(j.id);
select lives_ok($$select count(*) from j, awa.erase_job(j.id)$$, 'erase_job of the retried job succeeds');
select results_eq(
  $$select x.state, x.args from j, awa.jobs x where x.id = j.id$$,
  $$values ('cancelled'::awa.job_state, '{}'::jsonb)$$,
  'the erased job shows once, cancelled, its args erased');

select * from finish();
rollback;
