-- A resume is the token's one resolution: a later complete_external (or a
-- second resume) with the same token is stale and writes nothing, whether
-- the handler waited in sequence (it still runs) or the job was parked (it is
-- back in the queue).
begin;
select plan(10);

create temp table w as select * from awa_test.claim_registered('cb_wait', '2030-01-01 12:00:00+00');
create temp table p as select * from awa_test.claim_parked('cb_park', '2030-01-01 12:00:00+00');
select state from w, awa.resume_external(w.callback_id, '{"n": 1}');
select state from p, awa.resume_external(p.callback_id, '{"n": 1}');

prepare w_complete as select o.outcome, o.state from w, awa.complete_external(w.callback_id, '{"late": true}') o;
prepare w_resume as select o.outcome, o.state from w, awa.resume_external(w.callback_id, '{"n": 2}') o;
prepare p_complete as select o.outcome, o.state from p, awa.complete_external(p.callback_id, '{"late": true}') o;
prepare p_resume as select o.outcome, o.state from p, awa.resume_external(p.callback_id, '{"n": 2}') o;
select results_eq('w_complete', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'waiting: complete after resume is stale');
select awa_test.writes_nothing('execute w_complete', 'waiting: it writes nothing');
select results_eq('w_resume', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'waiting: a second resume is stale');
select awa_test.writes_nothing('execute w_resume', 'waiting: it writes nothing');
select results_eq('p_complete', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'parked: complete after resume is stale');
select awa_test.writes_nothing('execute p_complete', 'parked: it writes nothing');
select results_eq('p_resume', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'parked: a second resume is stale');
select awa_test.writes_nothing('execute p_resume', 'parked: it writes nothing');
select results_eq($$select status, result from w, awa.take_callback_result(w.id, w.run_lease, w.claim_slot, w.receipt_id, w.callback_id)$$,
                  $$values ('resumed'::text, '{"n": 1}'::jsonb)$$, 'the waiting handler takes the first payload');
select results_eq($$select state, metadata from awa.jobs where id = (select id from p)$$,
                  $$values ('available'::awa.job_state, '{"callback_result": {"n": 1}}'::jsonb)$$,
                  'the parked job is available with the first payload');

select * from finish();
rollback;
