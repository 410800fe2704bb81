-- A rescued attempt that was the job's last allowed one ends the job failed
-- (terminal snapshot), not retryable.
begin;
select plan(4);

create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rq", "max_attempts": 1}');
create temp table c as select * from awa.claim_ready_runtime('rq', 1, null, now());

select results_eq(
  $$select job_id, outcome, state from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '91 seconds')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from j$$,
  'the rescue of the last attempt reports failed');

select results_eq(
  $$select state, attempt, max_attempts, dlq, errors -> -1 ->> 'error' from awa.jobs where id = (select id from j)$$,
  $$values ('failed'::awa.job_state, 1, 1, false, 'rescued: worker heartbeat went stale')$$,
  'awa.jobs shows the job failed after 1 of 1 attempts, with the rescue error');

select is((select count(*)::int from awa.deferred_jobs), 0, 'nothing is left in the retry backlog');
select is((select count(*)::int from awa.done_entries where state = 'failed'), 1, 'a failed snapshot is written');

select * from finish();
rollback;
