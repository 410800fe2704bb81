-- A retry of the last attempt (max_attempts 1) ends the job failed, or in
-- the DLQ when its queue has the DLQ on, parked or waiting in sequence.
begin;
select plan(2);

select awa.configure_queue('cb_dlq', '{"dlq": true}');
create temp table j (name text, id bigint, callback_id uuid);
insert into j select 'parked', id, callback_id from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{"max_attempts": 1}');
insert into j select 'waiting', id, callback_id from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{"max_attempts": 1}');
insert into j select 'parked_dlq', id, callback_id from awa_test.claim_parked('cb_dlq', '2030-01-01 12:00:00+00', interval '1 hour', '{"max_attempts": 1}');
insert into j select 'waiting_dlq', id, callback_id from awa_test.claim_registered('cb_dlq', '2030-01-01 12:00:00+00', interval '1 hour', '{"max_attempts": 1}');

select results_eq($$select j.name, o.outcome, o.state from j, awa.retry_external(j.callback_id, 'again') o order by j.name$$,
                  $$values ('parked'::text, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state), ('parked_dlq', 'applied', 'failed'),
                           ('waiting', 'applied', 'failed'), ('waiting_dlq', 'applied', 'failed')$$,
                  'each exhausted retry is applied and ends failed');
select results_eq($$select j.name, a.state, a.attempt, a.dlq from j join awa.jobs a on a.id = j.id order by j.name$$,
                  $$values ('parked'::text, 'failed'::awa.job_state, 1, false), ('parked_dlq', 'failed', 1, true),
                           ('waiting', 'failed', 1, false), ('waiting_dlq', 'failed', 1, true)$$,
                  'failed, or in the DLQ for the DLQ queue, attempt 1');

select * from finish();
rollback;
