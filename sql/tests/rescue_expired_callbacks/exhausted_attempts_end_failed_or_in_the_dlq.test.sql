-- A callback timeout of the last attempt (max_attempts 1) ends the job
-- failed, or in the DLQ when its queue has the DLQ on, parked or waiting in
-- sequence.
begin;
select plan(2);

select awa.configure_queue('cb_dlq', '{"dlq": true}');
create temp table j (name text, id bigint);
insert into j select 'parked', id from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 minute', '{"max_attempts": 1}');
insert into j select 'waiting', id from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 minute', '{"max_attempts": 1}');
insert into j select 'parked_dlq', id from awa_test.claim_parked('cb_dlq', '2030-01-01 12:00:00+00', interval '1 minute', '{"max_attempts": 1}');
insert into j select 'waiting_dlq', id from awa_test.claim_registered('cb_dlq', '2030-01-01 12:00:00+00', interval '1 minute', '{"max_attempts": 1}');

select results_eq($$select j.name, r.outcome, r.state from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00') r
                    join j on j.id = r.job_id order by j.name$$,
                  $$values ('parked'::text, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state), ('parked_dlq', 'applied', 'failed'),
                           ('waiting', 'applied', 'failed'), ('waiting_dlq', 'applied', 'failed')$$,
                  'each exhausted timeout ends failed');
select results_eq($$select j.name, a.state, a.attempt, a.dlq, a.errors -> 0 ->> 'error' from j join awa.jobs a on a.id = j.id order by j.name$$,
                  $$values ('parked'::text, 'failed'::awa.job_state, 1, false, 'callback timed out'),
                           ('parked_dlq', 'failed', 1, true, 'callback timed out'),
                           ('waiting', 'failed', 1, false, 'callback timed out'),
                           ('waiting_dlq', 'failed', 1, true, 'callback timed out')$$,
                  'failed, or in the DLQ for the DLQ queue, attempt 1, the timeout in its errors');

select * from finish();
rollback;
