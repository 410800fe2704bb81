-- On a DLQ-enabled queue, a rescued last attempt sends the job to the DLQ.
begin;
select plan(3);

select * from awa.configure_queue('rqd', '{"dlq": true}');
create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rqd", "max_attempts": 1}');
create temp table c as select * from awa.claim_ready_runtime('rqd', 1, null, now());

select results_eq(
  $$select job_id, outcome, state from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '91 seconds')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from j$$,
  'the rescue of the last attempt reports failed');

select results_eq(
  $$select job_id, run_lease, attempt, errors -> -1 ->> 'error' from awa.dlq_entries$$,
  $$select id, run_lease, 1, 'rescued: worker heartbeat went stale' from c$$,
  'the job is held in the DLQ with its attempt and error');

select is((select count(*)::int from awa.done_entries), 0, 'no failed snapshot outside the DLQ');

select * from finish();
rollback;
