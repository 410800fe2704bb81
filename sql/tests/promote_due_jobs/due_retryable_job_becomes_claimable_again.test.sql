-- A retried attempt parks the job as retryable; once its retry_at is due,
-- promote_due_jobs makes it available and the next claim is attempt 2 with a
-- higher run_lease and the recorded error.
begin;
select plan(7);

create temp table j as select * from awa.insert_job('promote.k', '{}', '{"queue": "pq"}');
create temp table c as select * from awa.claim_ready_runtime('pq', 1, null, now());

select results_eq(
  $$select job_id, outcome, state
    from awa.retry_jobs(array[(select id from c)], array[(select run_lease from c)],
                        array[(select claim_slot from c)], array[(select receipt_id from c)],
                        array['boom'], array[now() + interval '5 seconds'], now())$$,
  $$select id, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from j$$,
  'the attempt is retried (fixture)');

select is_empty($$select * from awa.promote_due_jobs(100, now() + interval '4 seconds')$$,
                'a retryable job is not promoted before its retry_at');

select is((select state from awa.jobs where id = (select id from j)), 'retryable'::awa.job_state,
          'the job is still retryable before its retry_at');

select results_eq(
  $$select id, state from awa.promote_due_jobs(100, now() + interval '6 seconds')$$,
  $$select id, 'available'::awa.job_state from j$$,
  'after its retry_at the retryable job is promoted and returned');

select is((select count(*)::int from awa.deferred_jobs), 0, 'the deferred backlog is empty');

create temp table c2 as select * from awa.claim_ready_runtime('pq', 1, null, now() + interval '7 seconds');

select results_eq(
  $$select id, attempt, run_lease from c2$$,
  $$select id, 2, 2::bigint from j$$,
  'the next claim is attempt 2 with run_lease 2');

select is((select errors -> 0 ->> 'error' from c2), 'boom', 'the claimed job carries the error of attempt 1');

select * from finish();
rollback;
