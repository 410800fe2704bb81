-- retry_external of an attempt waiting in sequence is applied (state
-- retryable): the attempt closes (closure outcome callback_retry), is
-- counted, the error appended, run_at as given; the handler's take is stale.
begin;
select plan(4);

create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
select results_eq(
  $$select o.job_id, o.outcome, o.state
    from w, awa.retry_external(w.callback_id, 'try later', '2030-01-01 13:00:00+00', '2030-01-01 12:00:05+00') o$$,
  $$select id, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from w$$, 'the retry is applied');
select results_eq($$select state, attempt, run_at, errors from awa.jobs where id = (select id from w)$$,
                  $$values ('retryable'::awa.job_state, 1, '2030-01-01 13:00:00+00'::timestamptz,
                            '[{"at": "2030-01-01T12:00:05+00:00", "error": "try later", "attempt": 1}]'::jsonb)$$,
                  'retryable at run_at, attempt 1 counted, the error appended');
select results_eq($$select outcome from awa.claim_closures$$, $$values ('callback_retry'::text)$$,
                  'the attempt is closed with outcome callback_retry');
select is((select status from w, awa.take_callback_result(w.id, w.run_lease, w.claim_slot, w.receipt_id, w.callback_id)),
          'stale', 'the handler''s take is stale');

select * from finish();
rollback;
