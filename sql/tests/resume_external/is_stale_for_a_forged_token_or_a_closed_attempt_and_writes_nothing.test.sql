-- resume_external of a forged token, or of a token whose attempt was
-- cancelled while it waited in sequence, is stale and writes nothing.
begin;
select plan(4);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
prepare forged as select o.outcome, o.job_id from awa.resume_external(gen_random_uuid(), '{}') o;
select results_eq('forged', $$values ('stale'::awa.finalize_outcome, null::bigint)$$, 'a forged token is stale');
select awa_test.writes_nothing('execute forged', 'a forged token writes nothing');
select state from c, awa.cancel_job(c.id);
prepare cancelled as select o.outcome, o.state from c, awa.resume_external(c.callback_id, '{}') o;
select results_eq('cancelled', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'after cancel_job it is stale');
select awa_test.writes_nothing('execute cancelled', 'after cancel_job it writes nothing');

select * from finish();
rollback;
