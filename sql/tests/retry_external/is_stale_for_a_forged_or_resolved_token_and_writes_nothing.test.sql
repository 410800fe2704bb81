-- retry_external of a forged token, or of a token already resolved, is
-- stale and writes nothing.
begin;
select plan(4);

create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
select state from w, awa.retry_external(w.callback_id, 'first');
prepare forged as select o.outcome, o.job_id from awa.retry_external(gen_random_uuid(), 'x') o;
prepare again as select o.outcome, o.state from w, awa.retry_external(w.callback_id, 'second') o;
select results_eq('forged', $$values ('stale'::awa.finalize_outcome, null::bigint)$$, 'a forged token is stale');
select awa_test.writes_nothing('execute forged', 'a forged token writes nothing');
select results_eq('again', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'a second retry is stale');
select awa_test.writes_nothing('execute again', 'a second retry writes nothing');

select * from finish();
rollback;
