-- A token that names no attempt (a random uuid) or one a new registration
-- superseded is stale, names no job and writes nothing; the job still waits
-- for its current token.
begin;
select plan(5);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
create temp table forged as select gen_random_uuid() as token;
prepare forged as select o.* from forged, awa.complete_external(forged.token, '{}') o;
select results_eq('forged', $$select token, null::bigint, null::bigint, 'stale'::awa.finalize_outcome, null::awa.job_state from forged$$,
                  'a forged token is stale and names no job');
select awa_test.writes_nothing('execute forged', 'a forged token writes nothing');

select outcome from c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '1 hour');
prepare superseded as select o.outcome, o.state from c, awa.complete_external(c.callback_id, '{}') o;
select results_eq('superseded', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'a superseded token is stale');
select awa_test.writes_nothing('execute superseded', 'a superseded token writes nothing');
select is((select state from awa.jobs where id = (select id from c)), 'waiting_external'::awa.job_state, 'the job still waits');

select * from finish();
rollback;
