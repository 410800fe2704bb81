-- After its deadline an attempt is closed and routed through the retry path:
-- retryable, attempt counted, the rescue recorded as the error.
begin;
select plan(4);

select * from awa.configure_queue('dq', '{"deadline_seconds": 5}');
create temp table j as select * from awa.insert_job('deadline.k', '{}', '{"queue": "dq"}');
create temp table c as select * from awa.claim_ready_runtime('dq', 1, null, now());

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.rescue_expired_deadlines(1000, now() + interval '6 seconds')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from c$$,
  'the expired attempt is rescued into retryable');

select results_eq(
  $$select state, attempt, run_lease, errors -> -1 ->> 'error' from awa.jobs where id = (select id from j)$$,
  $$values ('retryable'::awa.job_state, 1, 1::bigint, 'rescued: deadline exceeded')$$,
  'awa.jobs shows the job retryable after attempt 1 with the deadline error');

select is((select count(*)::int from awa.claim_closures where outcome = 'deadline_expired'), 1,
          'closure evidence with outcome deadline_expired is written');

select is_empty($$select * from awa.rescue_expired_deadlines(1000, now() + interval '1 minute')$$,
                'the rescued attempt is not rescued twice');

select * from finish();
rollback;
