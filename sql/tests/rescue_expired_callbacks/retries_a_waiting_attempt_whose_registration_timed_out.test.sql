-- An open attempt waiting in sequence whose registration timed out unresumed
-- is retried through the finalizers' guard: closure outcome
-- callback_timeout, retryable, the attempt counted, 'callback timed out'
-- appended, the registration deleted; the handler's take and its own
-- complete are then stale, and so is the callback's late resume.
begin;
select plan(7);

create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 minute');
select results_eq($$select job_id, run_lease, outcome, state from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00')$$,
                  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from w$$,
                  'the timed-out attempt is retried');
select results_eq($$select state, attempt, errors -> 0 ->> 'error' from awa.jobs where id = (select id from w)$$,
                  $$values ('retryable'::awa.job_state, 1, 'callback timed out')$$, 'retryable, attempt 1, the timeout in its errors');
select results_eq($$select outcome from awa.claim_closures$$, $$values ('callback_timeout'::text)$$,
                  'the attempt is closed with outcome callback_timeout');
select is((select count(*) from awa.callbacks), 0::bigint, 'the registration is deleted');
select is((select status from w, awa.take_callback_result(w.id, w.run_lease, w.claim_slot, w.receipt_id, w.callback_id)),
          'stale', 'the handler''s take is stale');
select is((select outcome from w, awa.complete_jobs(array[w.id], array[w.run_lease], array[w.claim_slot], array[w.receipt_id])),
          'stale'::awa.finalize_outcome, 'the handler''s complete is stale');
select is((select outcome from w, awa.resume_external(w.callback_id, '{}')), 'stale'::awa.finalize_outcome,
          'the late resume is stale');

select * from finish();
rollback;
