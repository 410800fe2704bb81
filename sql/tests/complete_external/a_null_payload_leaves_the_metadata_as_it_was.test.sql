-- Without a payload the job completes with its metadata unchanged (no
-- callback_result key), parked or waiting in sequence.
begin;
select plan(2);

create temp table w as select * from awa_test.claim_registered('cb_wait', '2030-01-01 12:00:00+00', interval '1 hour', '{"metadata": {"m": 1}}');
create temp table p as select * from awa_test.claim_parked('cb_park', '2030-01-01 12:00:00+00', interval '1 hour', '{"metadata": {"m": 2}}');
select state from w, awa.complete_external(w.callback_id);
select state from p, awa.complete_external(p.callback_id, null);

select results_eq($$select id, state, metadata from awa.jobs where id = (select id from w)$$,
                  $$select id, 'completed'::awa.job_state, '{"m": 1}'::jsonb from w$$, 'the waiting job keeps its metadata');
select results_eq($$select id, state, metadata from awa.jobs where id = (select id from p)$$,
                  $$select id, 'completed'::awa.job_state, '{"m": 2}'::jsonb from p$$, 'the parked job keeps its metadata');

select * from finish();
rollback;
