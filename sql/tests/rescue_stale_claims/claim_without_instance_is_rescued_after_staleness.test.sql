-- A claim made without an instance_id is rescued once it is older than the
-- staleness: the attempt is closed, counted, and the job becomes retryable with
-- the rescue recorded in its errors.
begin;
select plan(8);

create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rq"}');
create temp table c as select * from awa.claim_ready_runtime('rq', 1, null, now());

select is_empty($$select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '89 seconds')$$,
                'a claim younger than the staleness is not rescued');

create temp table r as select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '91 seconds');

select results_eq(
  $$select job_id, run_lease, outcome, state from r$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from c$$,
  'the stale claim is rescued into retryable');

select results_eq(
  $$select state, attempt, run_lease from awa.jobs where id = (select id from j)$$,
  $$values ('retryable'::awa.job_state, 1, 1::bigint)$$,
  'awa.jobs shows the job retryable, attempt 1 counted, run_lease kept');

select results_eq(
  $$select jsonb_array_length(errors), errors -> 0 ->> 'error', (errors -> 0 ->> 'attempt')::int
    from awa.deferred_jobs where job_id = (select id from j)$$,
  $$values (1, 'rescued: worker heartbeat went stale', 1)$$,
  'the rescue is recorded as the error of attempt 1');

select ok((select run_at > now() + interval '91 seconds' from awa.deferred_jobs where job_id = (select id from j)),
          'the retry is scheduled after the rescue time (backoff)');

select is((select count(*)::int from awa.claim_closures where outcome = 'rescued_stale'), 1,
          'closure evidence with outcome rescued_stale is written');

select is_empty($$select * from awa.jobs where state = 'running'$$, 'no job is running any more');

select is_empty($$select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '200 seconds')$$,
                'a rescued attempt is not rescued twice');

select * from finish();
rollback;
