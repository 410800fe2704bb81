-- cancel_job of a parked job (waiting_external) is applied: the job leaves
-- the parked plane, ends cancelled with the reason appended (the parked
-- attempt counted) and keeps its progress checkpoint; its callback token
-- then resolves nothing (stale, writes nothing); a second cancel raises AW021.
begin;
select plan(7);

create temp table c as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{}',
                                                          '{"step": 1}');

select results_eq($$select k.job_id, k.run_lease, k.outcome, k.state from c, awa.cancel_job(c.id, 'not needed', '2030-01-01 12:00:05+00') k$$,
                  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from c$$,
                  'the cancel is applied');
select is((select count(*) from awa.external_waits), 0::bigint, 'the job is no longer parked');
select results_eq($$select state, attempt, errors, finalized_at from awa.jobs where id = (select id from c)$$,
                  $$values ('cancelled'::awa.job_state, 1,
                            '[{"at": "2030-01-01T12:00:05+00:00", "error": "not needed", "attempt": 1}]'::jsonb,
                            '2030-01-01 12:00:05+00'::timestamptz)$$,
                  'cancelled, the parked attempt counted, the reason appended');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb, 'the checkpoint is kept');
prepare late as select o.outcome, o.state from c, awa.complete_external(c.callback_id, '{}') o;
select results_eq('late', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'the token is stale');
select awa_test.writes_nothing('execute late', 'the token writes nothing');
select throws_ok($$select * from c, awa.cancel_job(c.id)$$, 'AW021', null, 'a second cancel raises AW021');

select * from finish();
rollback;
