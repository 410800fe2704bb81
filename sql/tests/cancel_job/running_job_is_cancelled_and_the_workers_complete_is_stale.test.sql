-- Cancelling a running job closes its attempt; the worker's later complete is
-- stale and writes nothing.
begin;
select plan(6);

create temp table j as select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
create temp table c as select * from awa.claim_ready_runtime('cq', 1, null, now());

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.cancel_job((select id from j), 'operator stop', now() + interval '1 second')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from c$$,
  'cancel_job of a running job is applied with the attempt''s run_lease');

select results_eq(
  $$select state, attempt, run_lease, errors -> -1 ->> 'error' from awa.jobs where id = (select id from j)$$,
  $$values ('cancelled'::awa.job_state, 1, 1::bigint, 'operator stop')$$,
  'awa.jobs shows the job cancelled during attempt 1 with the reason');

select is((select outcome from awa.claim_closures), 'cancelled', 'the attempt got closure evidence');

select results_eq(
  $$select job_id, outcome from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                                  array[(select claim_slot from c)], array[(select receipt_id from c)],
                                                  now() + interval '2 seconds')$$,
  $$select id, 'stale'::awa.finalize_outcome from c$$,
  'the worker''s later complete is stale');

select awa_test.writes_nothing(
  $$select * from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                   array[(select claim_slot from c)], array[(select receipt_id from c)],
                                   now() + interval '2 seconds')$$,
  'the stale complete writes nothing');

select is((select count(*)::int from awa.done_completions), 0, 'no completion batch exists');

select * from finish();
rollback;
