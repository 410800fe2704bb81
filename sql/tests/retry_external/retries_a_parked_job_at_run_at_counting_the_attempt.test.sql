-- retry_external of a parked job is applied (state retryable): the parked
-- attempt is counted, the error appended, and the job waits in the backlog
-- until run_at; without run_at, until the retry backoff
-- (awa._retry_backoff of attempt 1). Promoted, it is claimed as attempt 2.
begin;
select plan(5);

create temp table p as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00');
create temp table b as select * from awa_test.claim_parked('cb_backoff', '2030-01-01 12:00:00+00');

select results_eq(
  $$select o.job_id, o.outcome, o.state
    from p, awa.retry_external(p.callback_id, 'try later', '2030-01-01 13:00:00+00', '2030-01-01 12:00:05+00') o$$,
  $$select id, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from p$$, 'the retry is applied');
select results_eq($$select state, attempt, run_at, errors from awa.jobs where id = (select id from p)$$,
                  $$values ('retryable'::awa.job_state, 1, '2030-01-01 13:00:00+00'::timestamptz,
                            '[{"at": "2030-01-01T12:00:05+00:00", "error": "try later", "attempt": 1}]'::jsonb)$$,
                  'retryable at run_at, attempt 1 counted, the error appended');
select state from b, awa.retry_external(b.callback_id, null, null, '2030-01-01 12:00:05+00');
select results_eq($$select state, run_at from awa.jobs where id = (select id from b)$$,
                  $$select 'retryable'::awa.job_state, awa._retry_backoff(1, id, run_lease, '2030-01-01 12:00:05+00') from b$$,
                  'without run_at the job waits for the retry backoff');
select count(*) from awa.promote_due_jobs(1000, '2030-01-01 13:00:00+00');
create temp table again as select * from awa.claim_ready_runtime('cb', 1, null, '2030-01-01 13:00:01+00');
select results_eq($$select id, run_lease, attempt from again$$, $$select id, run_lease + 1, 2 from p$$,
                  'promoted and claimed, it is attempt 2');
select is((select outcome from p, awa.complete_external(p.callback_id)), 'stale'::awa.finalize_outcome,
          'the old token resolves nothing');

select * from finish();
rollback;
