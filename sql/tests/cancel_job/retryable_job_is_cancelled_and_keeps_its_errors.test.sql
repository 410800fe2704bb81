-- Cancelling a retryable job removes it from the backlog; the cancellation is
-- appended after the errors of its failed attempts.
begin;
select plan(3);

create temp table j as select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
create temp table c as select * from awa.claim_ready_runtime('cq', 1, null, now());
select * from awa.retry_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                             array[(select receipt_id from c)], array['first failure'], null, now());

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.cancel_job((select id from j), null, now())$$,
  $$select id, 1::bigint, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from j$$,
  'cancel_job of a retryable job is applied');

select results_eq(
  $$select state, attempt, errors -> 0 ->> 'error', errors -> 1 ->> 'error' from awa.jobs where id = (select id from j)$$,
  $$values ('cancelled'::awa.job_state, 1, 'first failure', 'cancelled by operator')$$,
  'the job is cancelled after attempt 1, with the default reason after the earlier error');

select is((select count(*)::int from awa.deferred_jobs), 0, 'the backlog is empty');

select * from finish();
rollback;
