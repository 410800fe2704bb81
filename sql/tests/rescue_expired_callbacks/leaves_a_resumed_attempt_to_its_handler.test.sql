-- An open attempt whose callback was resumed before its timeout is not
-- retried when the timeout passes: the handler still takes the result and
-- completes the attempt.
begin;
select plan(4);

create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 minute');
select state from w, awa.resume_external(w.callback_id, '{"n": 1}', '2030-01-01 12:00:30+00');
select is_empty($$select * from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00')$$, 'nothing is rescued');
select is((select state from awa.jobs where id = (select id from w)), 'running'::awa.job_state, 'the attempt still runs');
select results_eq($$select status, result from w, awa.take_callback_result(w.id, w.run_lease, w.claim_slot, w.receipt_id, w.callback_id)$$,
                  $$values ('resumed'::text, '{"n": 1}'::jsonb)$$, 'the handler takes the result');
select is((select outcome from w, awa.complete_jobs(array[w.id], array[w.run_lease], array[w.claim_slot], array[w.receipt_id])),
          'applied'::awa.finalize_outcome, 'and completes its attempt');

select * from finish();
rollback;
