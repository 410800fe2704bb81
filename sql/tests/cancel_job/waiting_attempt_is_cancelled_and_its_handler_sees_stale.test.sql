-- cancel_job of a running attempt that waits in sequence for its callback
-- (waiting_external) closes the attempt like any running one: cancelled; the
-- handler's take is then stale and the callback's token resolves nothing.
begin;
select plan(4);

create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
select results_eq($$select job_id, outcome, state from w, awa.cancel_job(w.id, 'stop')$$,
                  $$select id, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from w$$, 'the cancel is applied');
select is((select state from awa.jobs where id = (select id from w)), 'cancelled'::awa.job_state, 'the job is cancelled');
select is((select status from w, awa.take_callback_result(w.id, w.run_lease, w.claim_slot, w.receipt_id, w.callback_id)),
          'stale', 'the handler''s take is stale');
select is((select outcome from w, awa.resume_external(w.callback_id, '{}')), 'stale'::awa.finalize_outcome,
          'the token resolves nothing');

select * from finish();
rollback;
